import { WEBHOOK_TOPIC_DESCRIPTIONS, type WebhookTopic } from '../domain/webhooks/topics.ts';

/**
 * Chat services cannot show raw JSON: their incoming-webhook URLs get a message in their own
 * format instead. Recognised by host (and path for Discord).
 */
export type ChatService = 'slack' | 'discord' | 'teams' | 'google_chat';

const recognise = (url: string): ChatService | null => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname.toLowerCase();
  if (host === 'hooks.slack.com') return 'slack';
  if (/^((ptb|canary)\.)?discord(app)?\.com$/.test(host) && parsed.pathname.startsWith('/api/webhooks')) return 'discord';
  if (host.endsWith('.webhook.office.com') || host === 'outlook.office.com') return 'teams';
  if (host === 'chat.googleapis.com') return 'google_chat';
  return null;
};

const recognised = new Map<string, ChatService | null>();

/** Which chat service a URL is (null: none), recognised once per URL (every attempt asks). */
export const chatServiceOf = (url: string): ChatService | null => {
  let service = recognised.get(url);
  if (service === undefined) {
    service = recognise(url);
    if (recognised.size >= 10_000) recognised.clear();
    recognised.set(url, service);
  }
  return service;
};

const MAX_FIELDS = 12;

/**
 * The scalar facts of a payload worth showing (nested objects flattened one level: image.id,
 * image.url; arrays of objects and deeper objects left out), at most MAX_FIELDS of them: the
 * resource's first, then the event id and time, which always have room (an embedded Image alone
 * has more scalar fields than that).
 */
const factsOf = (payload: Record<string, unknown>): { name: string; value: string }[] => {
  const metadata = (payload._metadata ?? {}) as Record<string, unknown>;
  const trailer = [
    { name: 'event id', value: metadata.event_id },
    { name: 'time', value: metadata.timestamp },
  ].flatMap(({ name, value }) => (value === null || value === undefined ? [] : [{ name, value: String(value).slice(0, 200) }]));
  const room = MAX_FIELDS - trailer.length;
  const facts: { name: string; value: string }[] = [];
  const add = (name: string, value: unknown) => {
    if (value === null || value === undefined || facts.length >= room) return;
    if (typeof value === 'object') {
      if (Array.isArray(value)) add(name, value.filter((item) => typeof item !== 'object').join(', ') || undefined);
      return;
    }
    facts.push({ name, value: String(value).slice(0, 200) });
  };
  for (const [key, value] of Object.entries(payload)) {
    if (key === '_metadata') continue;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, innerValue] of Object.entries(value)) add(`${key}.${inner}`, innerValue);
    } else add(key, value);
  }
  return [...facts, ...trailer];
};

const titleOf = (eventType: string): string => {
  const description = WEBHOOK_TOPIC_DESCRIPTIONS[eventType as WebhookTopic];
  return description ? `${eventType}: ${description}` : eventType;
};

export const formatChatMessage = (service: ChatService, eventType: string, payload: Record<string, unknown>): Record<string, unknown> => {
  const title = titleOf(eventType);
  const facts = factsOf(payload);
  const lines = facts.map((fact) => `• ${fact.name}: ${fact.value}`).join('\n');
  switch (service) {
    case 'slack':
      return {
        text: `${title}\n${lines}`,
        blocks: [
          { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150) } },
          ...(facts.length === 0
            ? []
            : [{ type: 'section', fields: facts.slice(0, 10).map((fact) => ({ type: 'mrkdwn', text: `*${fact.name}*\n${fact.value}` })) }]),
        ],
      };
    case 'discord':
      return { content: `**${title}**\n${lines}`.slice(0, 2000) };
    case 'teams':
      return {
        '@type': 'MessageCard',
        '@context': 'https://schema.org/extensions',
        summary: title,
        title,
        sections: [{ facts }],
      };
    case 'google_chat':
      return { text: `*${title}*\n${lines}` };
  }
};

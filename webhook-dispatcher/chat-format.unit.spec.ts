import { describe, expect, it } from 'vitest';
import { chatServiceOf, formatChatMessage } from './chat-format.ts';

const payload = {
  id: 42,
  image_id: 'abc',
  sub_id: 'user-1',
  value: 1,
  image: { id: 'abc', url: null },
  _metadata: { event_type: 'vote.created', event_id: 'evt-1', timestamp: '2026-01-01T00:00:00.000Z', country_code: 'GB' },
};

describe('chat service detection', () => {
  it.each([
    ['https://hooks.slack.com/services/T000/B000/XXXX', 'slack'],
    ['https://discord.com/api/webhooks/123/abc', 'discord'],
    ['https://discordapp.com/api/webhooks/123/abc', 'discord'],
    ['https://canary.discord.com/api/webhooks/1/x', 'discord'],
    ['https://acme.webhook.office.com/webhookb2/abc', 'teams'],
    ['https://outlook.office.com/webhook/abc', 'teams'],
    ['https://chat.googleapis.com/v1/spaces/AAA/messages?key=k', 'google_chat'],
  ])('%s → %s', (url, service) => expect(chatServiceOf(url)).toBe(service));

  it.each(['https://example.com/hook', 'https://discord.com/channels/1', 'https://slack.com/hooks', 'https://evil.com/hooks.slack.com', 'not a url'])(
    '%s is not a chat service',
    (url) => expect(chatServiceOf(url)).toBeNull(),
  );
});

describe('chat message formats', () => {
  it('Slack: text plus header and field blocks', () => {
    const message = formatChatMessage('slack', 'vote.created', payload) as { text: string; blocks: { type: string; fields?: { text: string }[] }[] };
    expect(message.text).toContain('vote.created: a vote was recorded');
    expect(message.text).toContain('• image_id: abc');
    expect(message.text).toContain('• event id: evt-1');
    expect(message.blocks[0].type).toBe('header');
    expect(message.blocks[1].fields?.length).toBeLessThanOrEqual(10);
    expect(JSON.stringify(message)).not.toContain('_metadata');
  });
  it('Discord: content, at most 2000 characters', () => {
    const message = formatChatMessage('discord', 'vote.created', { ...payload, sub_id: 'x'.repeat(5000) }) as { content: string };
    expect(message.content.startsWith('**vote.created: a vote was recorded**')).toBe(true);
    expect(message.content.length).toBeLessThanOrEqual(2000);
  });
  it('Teams: a MessageCard with facts', () => {
    const message = formatChatMessage('teams', 'favourite.created', payload) as Record<string, any>;
    expect(message['@type']).toBe('MessageCard');
    expect(message.title).toBe('favourite.created: a favourite was recorded');
    expect(message.sections[0].facts).toContainEqual({ name: 'image.id', value: 'abc' });
  });
  it('a vote with its Image embedded stays compact: the vote, the image\'s first facts (url among them), the event id and time', () => {
    const image = {
      id: 'abc', url: 'https://cdn.example/v1/images/files/t.jpg', width: 640, height: 480, mime_type: 'image/jpeg', sub_id: 'user-1', species_id: '1',
      status: 'labelled', breed_ids: ['abys'], breeds: [{ id: 'abys', name: 'Abyssinian', weight: { metric: '3 - 5' } }], categories: [], colours: [],
      tags: ['cat'], age_months: null, unsafe_reasons: [], created_at: '2026-01-01T00:00:00.000Z',
      review: { approved: true, pending: false }, pending: 0, approved: 1, original_filename: 'cat.jpg', childImages: [],
    };
    const withImage = { ...payload, created_at: '2026-01-01T00:00:00.000Z', country_code: 'GB', image };
    for (const service of ['slack', 'discord', 'teams', 'google_chat'] as const) {
      const text = JSON.stringify(formatChatMessage(service, 'vote.created', withImage));
      expect(text.length, service).toBeLessThan(2000);
      expect(text, service).toContain('https://cdn.example/v1/images/files/t.jpg');
      expect(text, service).toContain('evt-1');
      expect(text, service).toContain('2026-01-01T00:00:00.000Z');
      expect(text, service).not.toContain('Abyssinian');
    }
    const facts = (formatChatMessage('teams', 'vote.created', withImage) as Record<string, any>).sections[0].facts as { name: string }[];
    expect(facts.length).toBeLessThanOrEqual(12);
    expect(facts.slice(-2).map((fact) => fact.name)).toEqual(['event id', 'time']);
  });
  it('Google Chat: text', () => {
    const message = formatChatMessage('google_chat', 'some.unknown', payload) as { text: string };
    expect(message.text.startsWith('*some.unknown*\n')).toBe(true);
    expect(message.text).toContain('• id: 42');
  });
});

import type { Logger } from 'pino';
import { webhookEndpointDecider } from '../domain/webhooks/decide.ts';
import { webhookEndpointEvents, webhookStream, type WebhookEndpointState } from '../domain/webhooks/endpoint.ts';
import type { EventStore, RecordedEvent, Subscription } from '../infrastructure/event-store/port.ts';
import { isFrom } from '../infrastructure/event-store/recorded.ts';

const STREAM_PREFIX = webhookStream('');

type Cached = { state: WebhookEndpointState; revision: bigint };
type Loading = { loading: Promise<Cached>; later: RecordedEvent[] };

/**
 * The endpoints this process delivers to, held in memory: each endpoint's stream is read once,
 * when a delivery to it first comes up, and from then on kept current from its events (a
 * subscription to the `webhook-` streams from the log's head at start), so an attempt reads no
 * stream. A rotated secret, a disabled or deleted endpoint and the failure count reach the table
 * as soon as the subscription sees the event (in the same process at once; another process's
 * appends within the event store's poll interval). Events are applied by revision, so one that
 * the first read already contained is not applied twice.
 */
export type EndpointTable = {
  get: (webhookId: string) => Promise<WebhookEndpointState>;
  /** The revision the table holds of an endpoint (null: not loaded). */
  revisionOf: (webhookId: string) => bigint | null;
  stop: () => Promise<void>;
};

export const startEndpointTable = async (eventStore: EventStore, logger: Logger): Promise<EndpointTable> => {
  const table = new Map<string, Cached | Loading>();

  const apply = (cached: Cached, event: RecordedEvent) => {
    if (event.revision <= cached.revision) return;
    if (isFrom(webhookEndpointEvents, event)) cached.state = webhookEndpointDecider.evolve(cached.state, event);
    cached.revision = event.revision;
  };

  const load = (webhookId: string): Promise<Cached> => {
    const pending: Loading = {
      later: [],
      loading: eventStore.readStream(webhookStream(webhookId)).then(
        (events) => {
          const cached: Cached = { state: webhookEndpointDecider.initialState(), revision: -1n };
          for (const event of events) apply(cached, event);
          for (const event of pending.later) apply(cached, event);
          table.set(webhookId, cached);
          return cached;
        },
        (error) => {
          table.delete(webhookId);
          throw error;
        },
      ),
    };
    table.set(webhookId, pending);
    return pending.loading;
  };

  const head = await eventStore.headPosition();
  const subscription: Subscription = eventStore.subscribe({
    after: head,
    filter: { streamPrefixes: [STREAM_PREFIX] },
    onEvents: async (events) => {
      for (const event of events) {
        const held = table.get(event.streamName.slice(STREAM_PREFIX.length));
        if (!held) continue; // not loaded yet: its first read will contain this event
        if ('loading' in held) held.later.push(event);
        else apply(held, event);
      }
    },
    onError: (error) => logger.error({ err: error }, 'webhook endpoint updates failed; retrying'),
  });

  return {
    get: async (webhookId) => {
      const held = table.get(webhookId);
      if (!held) return (await load(webhookId)).state;
      return 'loading' in held ? (await held.loading).state : held.state;
    },
    revisionOf: (webhookId) => {
      const held = table.get(webhookId);
      return held && !('loading' in held) ? held.revision : null;
    },
    stop: () => subscription.stop(),
  };
};

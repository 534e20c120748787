import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import { webhookAttemptsEvents, webhookDeliveryEvents, type AttemptEntry, type DeliveryOpening, type WebhookAttemptsRecorded, type WebhookDeliveryAttempted } from '../domain/webhooks/delivery.ts';
import type { Collection } from '../infrastructure/read-store/port.ts';
import { defineProjection } from './projection.ts';

const opened = (data: DeliveryOpening): WebhookDeliveryDoc => ({
  _id: data.delivery_id,
  id: data.delivery_id,
  webhook_id: data.webhook_id,
  account_id: data.account_id,
  event_id: data.event_id,
  event_type: data.event_type,
  status: 'pending',
  created_at: data.scheduled_at,
  updated_at: data.scheduled_at,
  next_attempt_at: data.scheduled_at,
  status_reason: null,
  attempts: [],
  round_attempts: 0,
  payload: data.payload,
});

/** A delivery after one of its attempts (a WebhookDeliveryAttempted event, or an entry of an attempt record). */
const withAttempt = (doc: WebhookDeliveryDoc, attempt: WebhookDeliveryAttempted['data'] | AttemptEntry, at: string): WebhookDeliveryDoc => {
  const { started_at, duration_ms, status_code, error, outcome } = attempt;
  const entry = { attempt: attempt.attempt, started_at, duration_ms, status_code, error, outcome, ...('signature' in attempt ? { signature: attempt.signature } : {}) };
  const repeated = doc.attempts.some((a) => a.attempt === attempt.attempt);
  return {
    ...doc,
    status: outcome === 'retrying' ? 'pending' : outcome,
    next_attempt_at: attempt.next_attempt_at,
    status_reason: outcome === 'failed' ? 'every attempt of this round failed' : null,
    attempts: [...doc.attempts.filter((a) => a.attempt !== attempt.attempt), entry],
    round_attempts: (doc.round_attempts ?? doc.attempts.length) + (repeated ? 0 : 1),
    updated_at: at,
  };
};

/** The attempts of one record, a document write per delivery (the documents read together). */
const applyAttempts = async (data: WebhookAttemptsRecorded['data'], deliveries: Collection<WebhookDeliveryDoc>, at: string, position: bigint) => {
  const known = await deliveries.getMany([...new Set(data.attempts.map((entry) => entry.delivery_id))]);
  const changed = new Map<string, WebhookDeliveryDoc>();
  for (const entry of data.attempts) {
    const doc = changed.get(entry.delivery_id) ?? known.get(entry.delivery_id) ?? (entry.opened ? opened(entry.opened) : undefined);
    if (doc) changed.set(entry.delivery_id, withAttempt(doc, entry, at));
  }
  for (const doc of changed.values()) await deliveries.upsert(doc, position);
};

/**
 * The delivery log (GET /webhooks/{id}/deliveries) and the dispatcher's list of pending deliveries:
 * from each delivery's stream (opened, parked, abandoned, redelivery asked for; the attempts of
 * streams written before attempt records) and from the attempt records, an entry per attempt.
 */
export const webhookDeliveriesProjection = defineProjection({
  name: 'webhook_deliveries',
  collections: [Collections.webhookDeliveries],
  streams: [webhookDeliveryEvents, webhookAttemptsEvents],
  async setup(store) {
    const deliveries = store.collection(Collections.webhookDeliveries);
    // GET /webhooks/{id}/deliveries newest first, all or of one status; the dispatcher's pending
    // ones by next attempt; the ops page's counts by status and latest deliveries.
    await deliveries.createIndex({ webhook_id: 1, created_at: 1, _id: 1 });
    await deliveries.createIndex({ webhook_id: 1, status: 1, created_at: 1, _id: 1 });
    await deliveries.createIndex({ status: 1, next_attempt_at: 1 });
    await deliveries.createIndex({ updated_at: 1 });
  },
  async apply(event, store) {
    const deliveries = store.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);
    const at = event.metadata.timestamp;
    if (event.type === 'WebhookAttemptsRecorded') return applyAttempts(event.data, deliveries, at, event.position);
    const update = async (change: (doc: WebhookDeliveryDoc) => Partial<WebhookDeliveryDoc>, first?: DeliveryOpening) => {
      // A delivery attempted straight from the bus: its first outcome opens the stream.
      const doc = first ? opened(first) : await deliveries.get(event.data.delivery_id);
      if (doc) await deliveries.upsert({ ...doc, ...change(doc), updated_at: at }, event.position);
    };
    switch (event.type) {
      case 'WebhookDeliveryScheduled':
        await deliveries.upsert(opened(event.data), event.position);
        return;
      case 'WebhookDeliveryAttempted': {
        const attempted = event.data;
        return update((doc) => withAttempt(doc, attempted, at), attempted.opened);
      }
      case 'WebhookDeliveryAbandoned':
        return update(() => ({ status: 'abandoned', next_attempt_at: null, status_reason: event.data.reason }));
      case 'WebhookRedeliveryRequested':
        return update(() => ({ status: 'pending', next_attempt_at: event.data.requested_at, status_reason: 'redelivery requested', round_attempts: 0 }));
    }
  },
});

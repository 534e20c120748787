import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import { webhookDeliveryEvents, type DeliveryOpening } from '../domain/webhooks/delivery.ts';
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
  payload: data.payload,
});

/** The delivery log (GET /webhooks/{id}/deliveries) and the dispatcher's list of pending deliveries. */
export const webhookDeliveriesProjection = defineProjection({
  name: 'webhook_deliveries',
  collections: [Collections.webhookDeliveries],
  streams: [webhookDeliveryEvents],
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
        const { attempt, started_at, duration_ms, status_code, error, outcome } = event.data;
        return update((doc) => ({
          status: outcome === 'retrying' ? 'pending' : outcome,
          next_attempt_at: event.data.next_attempt_at,
          status_reason: outcome === 'failed' ? 'every attempt of this round failed' : null,
          attempts: [...doc.attempts.filter((a) => a.attempt !== attempt), { attempt, started_at, duration_ms, status_code, error, outcome }],
        }), event.data.opened);
      }
      case 'WebhookDeliveryAbandoned':
        return update(() => ({ status: 'abandoned', next_attempt_at: null, status_reason: event.data.reason }));
      case 'WebhookRedeliveryRequested':
        return update(() => ({ status: 'pending', next_attempt_at: event.data.requested_at, status_reason: 'redelivery requested' }));
    }
  },
});

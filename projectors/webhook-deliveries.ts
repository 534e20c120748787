import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import type { WebhookDeliveryEvent } from '../domain/webhooks/delivery.ts';
import { defineProjection } from './projection.ts';

/** The delivery log (GET /webhooks/{id}/deliveries) and the dispatcher's list of pending deliveries. */
export const webhookDeliveriesProjection = defineProjection({
  name: 'webhook_deliveries',
  collections: [Collections.webhookDeliveries],
  streamPrefixes: ['webhookdelivery-'],
  async setup(store) {
    await store.collection(Collections.webhookDeliveries).createIndex('webhook_id');
    await store.collection(Collections.webhookDeliveries).createIndex('status');
  },
  async apply(recorded, store) {
    const event = recorded as unknown as WebhookDeliveryEvent;
    const deliveries = store.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);
    const at = recorded.metadata.timestamp;
    const update = async (change: (doc: WebhookDeliveryDoc) => Partial<WebhookDeliveryDoc>) => {
      const doc = await deliveries.get(event.data.delivery_id);
      if (doc) await deliveries.upsert({ ...doc, ...change(doc), updated_at: at }, recorded.position);
    };
    switch (event.type) {
      case 'WebhookDeliveryScheduled':
        await deliveries.upsert(
          {
            _id: event.data.delivery_id,
            id: event.data.delivery_id,
            webhook_id: event.data.webhook_id,
            account_id: event.data.account_id,
            event_id: event.data.event_id,
            event_type: event.data.event_type,
            status: 'pending',
            created_at: event.data.scheduled_at,
            updated_at: event.data.scheduled_at,
            next_attempt_at: event.data.scheduled_at,
            status_reason: null,
            attempts: [],
            payload: event.data.payload,
          },
          recorded.position,
        );
        return;
      case 'WebhookDeliveryAttempted': {
        const { attempt, started_at, duration_ms, status_code, error, outcome } = event.data;
        return update((doc) => ({
          status: outcome === 'retrying' ? 'pending' : outcome,
          next_attempt_at: event.data.next_attempt_at,
          status_reason: outcome === 'failed' ? 'every attempt of this round failed' : null,
          attempts: [...doc.attempts.filter((a) => a.attempt !== attempt), { attempt, started_at, duration_ms, status_code, error, outcome }],
        }));
      }
      case 'WebhookDeliveryAbandoned':
        return update(() => ({ status: 'abandoned', next_attempt_at: null, status_reason: event.data.reason }));
      case 'WebhookRedeliveryRequested':
        return update(() => ({ status: 'pending', next_attempt_at: event.data.requested_at, status_reason: 'redelivery requested' }));
    }
  },
});

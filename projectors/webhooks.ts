import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import { webhookEndpointEvents } from '../domain/webhooks/endpoint.ts';
import { defineProjection } from './projection.ts';

/** Webhook endpoints per account (what GET /webhooks lists and the dispatcher matches events against). */
export const webhooksProjection = defineProjection({
  name: 'webhooks',
  collections: [Collections.webhooks],
  streams: [webhookEndpointEvents],
  async setup(store) {
    // GET /webhooks (the account's, oldest first); the dispatcher's enabled ones of an account; the ops page's disabled ones.
    await store.collection(Collections.webhooks).createIndex({ account_id: 1, created_at: 1, _id: 1 });
    await store.collection(Collections.webhooks).createIndex({ account_id: 1, status: 1 });
    await store.collection(Collections.webhooks).createIndex({ status: 1, disabled_at: 1 });
  },
  async apply(event, store) {
    const webhooks = store.collection<WebhookDoc>(Collections.webhooks);
    const update = async (change: (doc: WebhookDoc) => Partial<WebhookDoc>) => {
      const doc = await webhooks.get(event.data.webhook_id);
      if (doc) await webhooks.upsert({ ...doc, ...change(doc) }, event.position);
    };
    switch (event.type) {
      case 'WebhookEndpointRegistered':
        await webhooks.upsert(
          {
            _id: event.data.webhook_id,
            id: event.data.webhook_id,
            account_id: event.data.account_id,
            url: event.data.url,
            name: event.data.name ?? null,
            description: event.data.description,
            enabled_events: [...event.data.enabled_events],
            status: 'enabled',
            legacy_unsigned: event.data.legacy_unsigned,
            consecutive_failures: 0,
            created_at: event.data.registered_at,
            disabled_at: null,
            secret_rotated_at: null,
          },
          event.position,
        );
        return;
      case 'WebhookSecretRotated':
        return update(() => ({ legacy_unsigned: false, secret_rotated_at: event.data.rotated_at }));
      case 'WebhookAttemptFailed':
        return update(() => ({ consecutive_failures: event.data.consecutive_failures }));
      case 'WebhookFailuresReset':
        return update(() => ({ consecutive_failures: 0 }));
      case 'WebhookDisabled':
        return update(() => ({ status: 'disabled', disabled_at: event.data.disabled_at }));
      case 'WebhookEndpointDeleted':
        await webhooks.delete(event.data.webhook_id, event.position);
        return;
    }
  },
});

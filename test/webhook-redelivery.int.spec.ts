import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import type { AttemptEntry } from '../domain/webhooks/delivery.ts';
import { isDomainError } from '../domain/errors.ts';
import { projectToHead, startProjections } from '../projectors/runner.ts';
import { webhookDeliveriesProjection } from '../projectors/webhook-deliveries.ts';
import { redeliverWebhook } from '../command-api/handlers/webhooks.ts';

const now = new Date().toISOString();
const metadata = { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: now, schema_version: 1 };
const context = { accountId: 'acc', requestId: null, actor: 'test' };

const setUp = async (): Promise<{ eventStore: EventStore; readStore: ReadStore; project: () => Promise<unknown> }> => {
  const eventStore = sqliteEventStore(':memory:');
  const readStore = embeddedReadStore();
  await eventStore.append('webhook-w1', [
    {
      id: randomUUID(),
      type: 'WebhookEndpointRegistered',
      data: { webhook_id: 'w1', account_id: 'acc', url: 'https://example.com/hook', description: '', enabled_events: ['vote.created'], signing_secret_encrypted: 'x', legacy_unsigned: false, registered_at: now },
      metadata,
    },
  ]);
  // One delivery attempted once, successfully: its only record is an entry of an attempt record.
  const entry: AttemptEntry = {
    delivery_id: 'd1', webhook_id: 'w1', account_id: 'acc', attempt: 1, started_at: now, duration_ms: 4, status_code: 204, error: null, outcome: 'succeeded', next_attempt_at: null,
    signature: { t: 1, secret_id: '0123456789abcdef' },
    opened: { delivery_id: 'd1', webhook_id: 'w1', account_id: 'acc', event_id: 'e1', event_type: 'vote.created', payload: { id: 1 }, scheduled_at: now },
  };
  await eventStore.append('webhookattempts-r1', [{ id: randomUUID(), type: 'WebhookAttemptsRecorded', data: { webhook_id: 'w1', account_id: 'acc', attempts: [entry] }, metadata }]);
  const project = async () => {
    const head = await projectToHead(eventStore, readStore, webhookDeliveriesProjection, { after: (await readStore.getCheckpoint('webhook_deliveries')) ?? 0n });
    await readStore.setCheckpoint('webhook_deliveries', head);
  };
  await project();
  return { eventStore, readStore, project };
};

describe('redelivery of a delivery whose attempts are in attempt records', () => {
  it('is decided on the delivery log: a finished delivery without a stream of its own is redelivered, a pending one refused', async () => {
    const { eventStore, readStore, project } = await setUp();
    await redeliverWebhook(eventStore, 'w1', 'd1', 'acc', context, readStore);
    expect((await eventStore.readStream('webhookdelivery-d1')).map((event) => event.type)).toEqual(['WebhookRedeliveryRequested']);
    await project();
    const doc = await readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries).get('d1');
    expect(doc).toMatchObject({ status: 'pending', round_attempts: 0, status_reason: 'redelivery requested' });
    expect(doc?.attempts).toHaveLength(1);
    // Pending again: a second request is refused.
    await expect(redeliverWebhook(eventStore, 'w1', 'd1', 'acc', context, readStore)).rejects.toMatchObject({ code: 'delivery_pending' });
    // Unknown to the log: not found.
    await expect(redeliverWebhook(eventStore, 'w1', 'nope', 'acc', context, readStore)).rejects.toMatchObject({ code: 'not_found' });
    await eventStore.close();
    await readStore.close();
  });

  it('two requests at once: one is accepted, the other (decided again on the log) finds the delivery pending', async () => {
    const { eventStore, readStore } = await setUp();
    // The projection runs as in the service, so the retry's wait for the log sees the first request.
    const projections = await startProjections(eventStore, readStore, [webhookDeliveriesProjection], pino({ level: 'silent' }));
    const outcomes = await Promise.allSettled([
      redeliverWebhook(eventStore, 'w1', 'd1', 'acc', context, readStore),
      redeliverWebhook(eventStore, 'w1', 'd1', 'acc', context, readStore),
    ]);
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(isDomainError(refused[0]) && refused[0].code).toBe('delivery_pending');
    expect((await eventStore.readStream('webhookdelivery-d1')).map((event) => event.type)).toEqual(['WebhookRedeliveryRequested']);
    await projections.stop();
    await eventStore.close();
    await readStore.close();
  });
});

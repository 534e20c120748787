import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import type { AttemptEntry, DeliveryOpening } from '../domain/webhooks/delivery.ts';
import { projectToHead } from '../projectors/runner.ts';
import { webhookDeliveriesProjection } from '../projectors/webhook-deliveries.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const metadata = (ms: number) => ({ account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: 'system:webhook-dispatcher', timestamp: at(ms), schema_version: 1 });
const opening = (id: string): DeliveryOpening => ({ delivery_id: id, webhook_id: 'w1', account_id: 'acc', event_id: `e-${id}`, event_type: 'vote.created', payload: { id }, scheduled_at: at(0) });
const attempted = (id: string, attempt: number, outcome: 'succeeded' | 'retrying' | 'failed', extra: Record<string, unknown> = {}) => ({
  delivery_id: id, webhook_id: 'w1', account_id: 'acc', attempt, started_at: at(attempt * 1000), duration_ms: 7, status_code: outcome === 'succeeded' ? 200 : 500,
  error: outcome === 'succeeded' ? null : 'receiver answered 500', outcome, next_attempt_at: outcome === 'retrying' ? at(attempt * 1000 + 1100) : null, ...extra,
});

describe('the delivery log from old per-attempt streams and from attempt records', () => {
  it('replays streams written before attempt records to the same documents, and applies records entry by entry', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const append = (stream: string, type: string, data: object, ms: number) =>
      eventStore.append(stream, [{ id: randomUUID(), type, data: data as Record<string, unknown>, metadata: metadata(ms) }]);
    // Old streams: Scheduled then an Attempted per attempt; and a stream opened by its first Attempted.
    await append('webhookdelivery-old1', 'WebhookDeliveryScheduled', opening('old1'), 0);
    await append('webhookdelivery-old1', 'WebhookDeliveryAttempted', attempted('old1', 1, 'retrying'), 1000);
    await append('webhookdelivery-old1', 'WebhookDeliveryAttempted', attempted('old1', 2, 'succeeded'), 2000);
    await append('webhookdelivery-old2', 'WebhookDeliveryAttempted', attempted('old2', 1, 'succeeded', { opened: opening('old2') }), 1000);
    // New: a parked delivery (Scheduled on its stream) and one opened by its entry, in one record;
    // then the parked one's retry in a later record.
    await append('webhookdelivery-new1', 'WebhookDeliveryScheduled', opening('new1'), 0);
    const signature = { t: 1_767_225_600, secret_id: 'feedfacecafebeef' };
    const entries: AttemptEntry[] = [
      { ...attempted('new1', 1, 'retrying'), signature } as AttemptEntry,
      { ...attempted('new2', 1, 'succeeded', { opened: opening('new2') }), signature } as AttemptEntry,
    ];
    await append('webhookattempts-r1', 'WebhookAttemptsRecorded', { webhook_id: 'w1', account_id: 'acc', attempts: entries }, 1000);
    await append('webhookattempts-r2', 'WebhookAttemptsRecorded', { webhook_id: 'w1', account_id: 'acc', attempts: [{ ...attempted('new1', 2, 'succeeded'), signature }] }, 2000);
    await projectToHead(eventStore, readStore, webhookDeliveriesProjection);

    const docs = await readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries).getMany(['old1', 'old2', 'new1', 'new2']);
    const attemptsOf = (id: string) => docs.get(id)?.attempts.map(({ attempt, outcome, status_code }) => ({ attempt, outcome, status_code }));
    // The old streams read as they always did: every attempt, its outcome; no signature recorded.
    expect(docs.get('old1')).toMatchObject({ status: 'succeeded', event_id: 'e-old1', payload: { id: 'old1' }, next_attempt_at: null, updated_at: at(2000) });
    expect(attemptsOf('old1')).toEqual([{ attempt: 1, outcome: 'retrying', status_code: 500 }, { attempt: 2, outcome: 'succeeded', status_code: 200 }]);
    expect(docs.get('old1')?.attempts[0]).toEqual({ attempt: 1, started_at: at(1000), duration_ms: 7, status_code: 500, error: 'receiver answered 500', outcome: 'retrying' });
    expect(docs.get('old2')).toMatchObject({ status: 'succeeded', event_type: 'vote.created', created_at: at(0) });
    expect(attemptsOf('old2')).toEqual([{ attempt: 1, outcome: 'succeeded', status_code: 200 }]);
    // Attempt records: the same documents, each attempt with its signature.
    expect(docs.get('new1')).toMatchObject({ status: 'succeeded', round_attempts: 2, payload: { id: 'new1' } });
    expect(attemptsOf('new1')).toEqual([{ attempt: 1, outcome: 'retrying', status_code: 500 }, { attempt: 2, outcome: 'succeeded', status_code: 200 }]);
    expect(docs.get('new1')?.attempts[1].signature).toEqual(signature);
    expect(docs.get('new2')).toMatchObject({ status: 'succeeded', round_attempts: 1, event_id: 'e-new2', created_at: at(0) });
    await eventStore.close();
    await readStore.close();
  });
});

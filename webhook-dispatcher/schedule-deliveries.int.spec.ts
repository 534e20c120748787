import { describe, expect, it } from 'vitest';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { EndpointsBehindError, scheduleDeliveries } from './schedule-deliveries.ts';
import { deliveryIdFor } from './event-mapping.ts';

const endpoint = (id: string, events: string[], status: 'enabled' | 'disabled' = 'enabled'): WebhookDoc => ({
  _id: id,
  id,
  account_id: 'acc',
  url: 'https://example.com/hook',
  description: '',
  enabled_events: events,
  status,
  legacy_unsigned: false,
  consecutive_failures: 0,
  created_at: '2026-01-01T00:00:00.000Z',
  disabled_at: null,
  secret_rotated_at: null,
});

const voteCast = (id: string): RecordedEvent => ({
  id,
  type: 'VoteCast',
  streamName: 'vote-7',
  revision: 0n,
  position: 1n,
  data: { vote_id: 7, account_id: 'acc', image_id: 'img', sub_id: null, value: 1, country_code: null, ip_address: '192.0.2.1', created_at: '2026-01-01T00:00:00.000Z' },
  metadata: { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: '2026-01-01T00:00:00.000Z', schema_version: 1 },
});

describe('scheduling deliveries from domain events', () => {
  it('schedules one delivery per subscribed, enabled endpoint — once, however often the bus hands the event over', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const webhooks = readStore.collection<WebhookDoc>(Collections.webhooks);
    await webhooks.upsert(endpoint('w1', ['vote.created']), 1n);
    await webhooks.upsert(endpoint('w2', ['favourite.created']), 1n);
    await webhooks.upsert(endpoint('w3', ['vote.created'], 'disabled'), 1n);
    await readStore.setCheckpoint('webhooks', 1n);

    const event = voteCast('evt-1');
    const first = await scheduleDeliveries([event], { eventStore, readStore });
    const again = await scheduleDeliveries([event], { eventStore, readStore });
    expect(first).toEqual([deliveryIdFor('evt-1', 'w1')]);
    expect(again).toEqual(first);
    const stream = await eventStore.readStream(`webhookdelivery-${first[0]}`);
    expect(stream.map((recorded) => recorded.type)).toEqual(['WebhookDeliveryScheduled']);
    const payload = stream[0].data.payload as Record<string, unknown>;
    expect(payload).toEqual({
      id: 7,
      image_id: 'img',
      sub_id: null,
      created_at: '2026-01-01T00:00:00.000Z',
      value: 1,
      country_code: null,
      image: { id: 'img', url: null },
      _metadata: { event_type: 'vote.created', event_id: 'evt-1', timestamp: '2026-01-01T00:00:00.000Z' },
    });
    expect(JSON.stringify(payload)).not.toContain('192.0.2.1');
    expect(await scheduleDeliveries([{ ...event, type: 'VoteDeleted' }], { eventStore, readStore })).toEqual([]);
    await eventStore.close();
    await readStore.close();
  });

  it('schedules a whole batch at once: each account to its own endpoints, a repeated event once', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const webhooks = readStore.collection<WebhookDoc>(Collections.webhooks);
    await webhooks.upsert(endpoint('a1', ['vote.created']), 1n);
    await webhooks.upsert(endpoint('a2', ['vote.created', 'favourite.created']), 1n);
    await webhooks.upsert({ ...endpoint('b1', ['vote.created']), account_id: 'other' }, 1n);
    await readStore.setCheckpoint('webhooks', 3n);

    const ofOther = (id: string): RecordedEvent => {
      const event = voteCast(id);
      return { ...event, position: 3n, data: { ...event.data, account_id: 'other' } };
    };
    const batch = [voteCast('e1'), ofOther('e2'), voteCast('e3'), voteCast('e1')];
    const ids = await scheduleDeliveries(batch, { eventStore, readStore });
    const expected = [
      deliveryIdFor('e1', 'a1'),
      deliveryIdFor('e1', 'a2'),
      deliveryIdFor('e2', 'b1'),
      deliveryIdFor('e3', 'a1'),
      deliveryIdFor('e3', 'a2'),
    ];
    expect(new Set(ids)).toEqual(new Set(expected));
    for (const id of expected) {
      expect((await eventStore.readStream(`webhookdelivery-${id}`)).map((recorded) => recorded.type)).toEqual(['WebhookDeliveryScheduled']);
    }
    expect((await eventStore.readStream(`webhookdelivery-${deliveryIdFor('e2', 'b1')}`))[0].data.account_id).toBe('other');
    await eventStore.close();
    await readStore.close();
  });

  it('fails the batch, scheduling nothing, while the endpoints read model is behind the events (redelivered later)', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    // The endpoint was registered before the vote, but its projection is held back at position 0.
    const event = { ...voteCast('late-1'), position: 5n };
    const attempt = scheduleDeliveries([event], { eventStore, readStore }, { catchUpMs: 50 });
    await expect(attempt).rejects.toBeInstanceOf(EndpointsBehindError);
    expect(await eventStore.readStream(`webhookdelivery-${deliveryIdFor('late-1', 'w1')}`)).toEqual([]);
    // The projection catches up; the batch handed over again schedules against the current list.
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(endpoint('w1', ['vote.created']), 4n);
    await readStore.setCheckpoint('webhooks', 5n);
    expect(await scheduleDeliveries([event], { eventStore, readStore }, { catchUpMs: 50 })).toEqual([deliveryIdFor('late-1', 'w1')]);
    await eventStore.close();
    await readStore.close();
  });
});

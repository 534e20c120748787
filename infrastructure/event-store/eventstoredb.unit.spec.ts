import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eventStoreContract } from './event-store.contract.ts';
import { eventStoreDbEventStore } from './eventstoredb.ts';
import { fakeEsdbClient, type FakeEsdb } from './esdb-fake-client.ts';
import type { EventStore, NewEvent, RecordedEvent } from './port.ts';

/**
 * The EventStoreDB adapter against a stand-in of the client (esdb-fake-client.ts: the client's
 * own types, byte-offset positions, system events, Readable subscriptions). What only a real
 * server can show is listed in docs/operations.md (EventStoreDB).
 */
eventStoreContract('EventStoreDB adapter on a fake client', async () => eventStoreDbEventStore('esdb://unused', { client: fakeEsdbClient(), retryDelayMs: 20 }));

const event = (type = 'Thing'): NewEvent => ({
  id: randomUUID(),
  type,
  data: {},
  metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: new Date().toISOString(), schema_version: 1 },
});

const open = (): { client: FakeEsdb; store: EventStore } => {
  const client = fakeEsdbClient();
  return { client, store: eventStoreDbEventStore('esdb://unused', { client, retryDelayMs: 20 }) };
};

describe('EventStoreDB adapter specifics', () => {
  it('headPosition reads one event when the log ends with a user event', async () => {
    const { client, store } = open();
    for (let i = 0; i < 10; i++) await store.append(`thing-${i}`, [event()]);
    const last = await store.append('thing-last', [event()]);
    client.readAllCalls.length = 0;
    expect(await store.headPosition()).toBe(last.position);
    expect(client.readAllCalls).toEqual([{ direction: 'backwards', from: 'end', maxCount: 1 }]);
    await store.close();
  });

  it('headPosition looks past trailing system events, a small page at a time', async () => {
    const { client, store } = open();
    const last = await store.append('thing-1', [event()]);
    for (let i = 0; i < 5; i++) client.systemEvent();
    client.readAllCalls.length = 0;
    expect(await store.headPosition()).toBe(last.position);
    expect(client.readAllCalls.map((call) => call.maxCount)).toEqual([1, 32]);
    expect(await open().store.headPosition()).toBe(0n);
    await store.close();
  });

  it('catches up in batches (not one handler call per event), honouring batchSize', async () => {
    const { store } = open();
    for (let i = 0; i < 60; i++) await store.append(`thing-${i}`, [event()]);
    const calls: number[] = [];
    const subscription = store.subscribe({ onEvents: async (events) => void calls.push(events.length), batchSize: 25 });
    await expect.poll(() => calls.reduce((a, b) => a + b, 0), { timeout: 5000 }).toBe(60);
    await subscription.stop();
    expect(Math.max(...calls)).toBeLessThanOrEqual(25);
    expect(calls.length).toBeLessThanOrEqual(6);
    await store.close();
  });

  it('hands over only positions the server returned, also for a batch the filter emptied', async () => {
    const { store } = open();
    const positions = new Set<bigint>();
    for (let i = 0; i < 5; i++) positions.add((await store.append(`other-${i}`, [event()])).position);
    const lasts: bigint[] = [];
    const subscription = store.subscribe({ filter: { streamPrefixes: ['wanted-'] }, onEvents: async (_events, last) => void lasts.push(last) });
    await expect.poll(() => lasts.at(-1), { timeout: 5000 }).toBe([...positions].at(-1));
    await subscription.stop();
    expect(lasts.every((last) => positions.has(last))).toBe(true);
    await store.close();
  });

  it('resubscribes after a dropped subscription from the last handled position, skipping and repeating nothing', async () => {
    const { client, store } = open();
    for (let i = 0; i < 3; i++) await store.append(`thing-${i}`, [event('Before')]);
    const seen: RecordedEvent[] = [];
    const errors: unknown[] = [];
    let drop: (() => void) | null = null;
    const original = client.subscribeToAll.bind(client);
    client.subscribeToAll = ((...args: Parameters<FakeEsdb['subscribeToAll']>) => {
      const subscription = original(...args);
      drop = () => subscription.destroy(new Error('connection reset'));
      return subscription;
    }) as FakeEsdb['subscribeToAll'];
    const subscription = store.subscribe({ onEvents: async (events) => void seen.push(...events), onError: (error) => errors.push(error) });
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(3);
    (drop as unknown as () => void)();
    for (let i = 0; i < 3; i++) await store.append(`thing-after-${i}`, [event('After')]);
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(6);
    await subscription.stop();
    expect(seen.map((recorded) => recorded.type)).toEqual(['Before', 'Before', 'Before', 'After', 'After', 'After']);
    expect(errors.length).toBeGreaterThan(0);
    expect(client.openSubscriptions()).toBe(0);
    await store.close();
  });

  it('stop() while the handler keeps failing leaves the position at the last handled event', async () => {
    const { store } = open();
    const ok = await store.append('thing-ok', [event('Fine')]);
    await store.append('thing-poison', [event('Poison')]);
    const subscription = store.subscribe({
      onEvents: async (events) => {
        if (events.some((recorded) => recorded.type === 'Poison')) throw new Error('cannot handle');
      },
      batchSize: 1,
    });
    await expect.poll(() => subscription.position, { timeout: 5000 }).toBe(ok.position);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await subscription.stop();
    expect(subscription.position).toBe(ok.position);
    await store.close();
  });
});

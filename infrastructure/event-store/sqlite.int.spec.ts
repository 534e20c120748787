import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventStoreContract } from './event-store.contract.ts';
import { sqliteEventStore } from './sqlite.ts';

const dir = mkdtempSync(join(tmpdir(), 'es-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract('embedded SQLite', async () => sqliteEventStore(join(dir, `${randomUUID()}.db`), { pollIntervalMs: 20 }));

describe('embedded SQLite event store', () => {
  it('keeps every acknowledged event across a reopen', async () => {
    const file = join(dir, 'reopen.db');
    const first = sqliteEventStore(file);
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    for (let i = 0; i < 50; i++) await first.append(`s-${i % 5}`, [{ id: randomUUID(), type: 'E', data: { i }, metadata: meta }]);
    await first.close();
    const second = sqliteEventStore(file);
    const all = await second.readAll();
    expect(all.map((e) => e.data.i)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect((await second.append('s-0', [{ id: randomUUID(), type: 'E', data: {}, metadata: meta }], { expectedRevision: 9n })).nextRevision).toBe(10n);
    await second.close();
  });

  it('sees events appended by another connection to the same file (another process)', async () => {
    const file = join(dir, 'shared.db');
    const reader = sqliteEventStore(file, { pollIntervalMs: 20 });
    const writer = sqliteEventStore(file);
    const seen: string[] = [];
    const subscription = reader.subscribe({ onEvents: async (events) => void seen.push(...events.map((e) => e.type)) });
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    await writer.append('x-1', [{ id: randomUUID(), type: 'FromElsewhere', data: {}, metadata: meta }]);
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['FromElsewhere']);
    await subscription.stop();
    await reader.close();
    await writer.close();
  });

  it('reads a long log written elsewhere batch after batch, without waiting for its poll between them', async () => {
    const file = join(dir, 'catch-up.db');
    const writer = sqliteEventStore(file);
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    for (let i = 0; i < 20; i++) await writer.append(`c-${i}`, Array.from({ length: 50 }, (_, j) => ({ id: randomUUID(), type: 'E', data: { n: i * 50 + j }, metadata: meta })));
    // A poll interval far longer than the test: only reading on at once gets through ten batches.
    const reader = sqliteEventStore(file, { pollIntervalMs: 60_000 });
    let seen = 0;
    const subscription = reader.subscribe({ batchSize: 100, onEvents: async (events) => void (seen += events.length) });
    await expect.poll(() => seen, { timeout: 5000 }).toBe(1000);
    await subscription.stop();
    await reader.close();
    await writer.close();
  });

  it('lets timers and I/O run between the batches of a backlog (time-sliced) instead of reading it all in one turn', async () => {
    const store = sqliteEventStore(':memory:', { pollIntervalMs: 60_000 });
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    for (let i = 0; i < 20; i++) await store.append(`b-${i}`, Array.from({ length: 50 }, (_, j) => ({ id: randomUUID(), type: 'E', data: { n: i * 50 + j }, metadata: meta })));
    let seen = 0;
    // What a timer set before the catch-up (a read store's flush, a request's socket) finds when it runs.
    let seenWhenTimerRan: number | null = null;
    setTimeout(() => (seenWhenTimerRan = seen), 0);
    // Each batch holds the event loop 5 ms (as projecting it would): ten of them outlast a catch-up slice.
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const subscription = store.subscribe({ batchSize: 100, onEvents: async (events) => void ((seen += events.length), busy(5)) });
    await expect.poll(() => seen, { timeout: 5000 }).toBe(1000);
    expect(seenWhenTimerRan).not.toBeNull();
    expect(seenWhenTimerRan).toBeLessThan(1000);
    await subscription.stop();
    await store.close();
  });

  it('answers each append asked for in the same turn on its own: a refused one leaves nothing, the others land', async () => {
    const store = sqliteEventStore(join(dir, 'group.db'));
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    const event = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: meta });
    await store.append('g-taken', [event('First')]);
    const repeatedId = randomUUID();
    await store.append('g-repeat', [{ ...event('Once'), id: repeatedId }]);
    // Asked for together: they share one transaction.
    const outcomes = await Promise.allSettled([
      store.append('g-new', [event('A')], { expectedRevision: 'no_stream' }),
      store.append('g-taken', [event('Refused')], { expectedRevision: 'no_stream' }),
      store.append('g-taken', [event('Two'), event('Three')], { expectedRevision: 0n }),
      store.append('g-taken', [event('AlsoRefused'), event('Never')], { expectedRevision: 0n }),
      store.append('g-repeat', [{ ...event('Once'), id: repeatedId }], { expectedRevision: 'no_stream' }),
      store.append('g-other', [{ ...event('Stolen'), id: repeatedId }]),
      // Its second insert fails (an id already stored): the first is rolled back with it.
      store.append('g-taken', [event('Partial'), { ...event('Stolen'), id: repeatedId }]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected']);
    expect((await store.readStream('g-taken')).map((e) => e.type)).toEqual(['First', 'Two', 'Three']);
    expect((await store.readStream('g-new')).map((e) => e.type)).toEqual(['A']);
    expect((await store.readStream('g-repeat')).map((e) => e.type)).toEqual(['Once']);
    expect(await store.readStream('g-other')).toEqual([]);
    expect((await store.readAll()).map((e) => e.type)).toEqual(['First', 'Once', 'A', 'Two', 'Three']);
    await store.close();
  });

  it('makes an appendAll all or none, in the same commit as the appends asked for beside it', async () => {
    const store = sqliteEventStore(join(dir, 'all.db'));
    const meta = { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    const event = (type: string) => ({ id: randomUUID(), type, data: {}, metadata: meta });
    await store.append('a-taken', [event('First')]);
    const outcomes = await Promise.allSettled([
      store.append('a-single', [event('Single')]),
      // The claim lands but its favourite's stream exists already: the claim is rolled back with it.
      store.appendAll([
        { streamName: 'a-claim', events: [event('Claimed')], expectedRevision: 'no_stream' },
        { streamName: 'a-taken', events: [event('Refused')], expectedRevision: 'no_stream' },
      ]),
      store.appendAll([
        { streamName: 'a-claim', events: [event('ClaimedToo')], expectedRevision: 'no_stream' },
        { streamName: 'a-new', events: [event('Added')], expectedRevision: 'no_stream' },
      ]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.readStream('a-claim')).map((e) => e.type)).toEqual(['ClaimedToo']);
    expect((await store.readStream('a-taken')).map((e) => e.type)).toEqual(['First']);
    expect((await store.readAll()).map((e) => e.type)).toEqual(['First', 'Single', 'ClaimedToo', 'Added']);
    await store.close();
  });
});

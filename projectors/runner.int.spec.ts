import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { NewEvent } from '../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { Doc, ReadStore } from '../infrastructure/read-store/port.ts';
import type { Event } from '../domain/decider.ts';
import { streamEvents } from '../domain/stream-events.ts';
import { defineProjection } from './projection.ts';
import { projectToHead, startProjections } from './runner.ts';

type Tally = Doc & { count: number; last: string | null };
const tallyEvents = streamEvents<Event<'Counted', { n: number }>>('tally', { Counted: true });

const event = (n: number): NewEvent => ({
  id: randomUUID(),
  type: 'Counted',
  data: { n },
  metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: new Date().toISOString(), schema_version: 1 },
});

/** Reads back what it wrote earlier in the same batch: a running total plus one document per event. */
const tallyProjection = defineProjection({
  name: 'tally',
  collections: ['tallies'],
  streams: [tallyEvents],
  async apply(recorded, store) {
    const tallies = store.collection<Tally>('tallies');
    const total = (await tallies.get('total')) ?? { _id: 'total', count: 0, last: null };
    await tallies.upsert({ ...total, count: total.count + 1, last: String(recorded.data.n) }, recorded.position);
    await tallies.upsert({ _id: `n${String(recorded.data.n)}`, count: 1, last: null }, recorded.position);
    if (Number(recorded.data.n) % 3 === 0) await tallies.delete(`n${Number(recorded.data.n) - 1}`, recorded.position);
  },
});

/**
 * Six events projected through `seen` (the read store as the runner sees it), then the store loses
 * what it had acknowledged (documents and checkpoint dropped) and `lose` says so in its own way;
 * two more events follow. The live read model must then equal a replay, with all eight counted.
 */
const projectsAgainAfterLoss = async (
  eventStore: ReturnType<typeof sqliteEventStore>,
  readStore: ReadStore,
  seen: ReadStore,
  lose: () => void,
  { eventsAfter = true, checkpointKept = false, keptUpTo = 0 }: { eventsAfter?: boolean; checkpointKept?: boolean; keptUpTo?: number } = {},
) => {
  await eventStore.append('tally-1', Array.from({ length: 6 }, (_, i) => event(i + 1)));
  const running = await startProjections(eventStore, seen, [tallyProjection], pino({ level: 'silent' }));
  const last = eventsAfter ? 8 : 6;
  const tallies = readStore.collection<Tally>('tallies');
  try {
    expect(await readStore.waitForCheckpoints(['tally'], await eventStore.headPosition(), 5000)).toBe(true);
    const head = await eventStore.headPosition();
    await readStore.drop(['tallies'], checkpointKept ? [] : ['tally']);
    if (keptUpTo > 0) {
      // The store kept the documents as the first `keptUpTo` events left them, and its checkpoint.
      const kept = (await eventStore.readAll({ after: 0n, maxCount: 100 })).filter((recorded) => Number(recorded.data.n) <= keptUpTo);
      await projectToHead(eventStore, readStore, tallyProjection, { until: kept[kept.length - 1].position });
      await readStore.setCheckpoint('tally', head);
    }
    lose();
    if (eventsAfter) await eventStore.append('tally-1', [event(7), event(8)]);
    expect(await readStore.waitForCheckpoints(['tally'], await eventStore.headPosition(), 5000)).toBe(true);
    for (let i = 0; i < 100 && (await tallies.get('total'))?.count !== last; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    await running.stop();
  }
  const replay = embeddedReadStore();
  await projectToHead(eventStore, replay, tallyProjection);
  const live = await tallies.find({}, { sort: { _id: 1 } });
  expect(live).toEqual(await replay.collection<Tally>('tallies').find({}, { sort: { _id: 1 } }));
  expect(await tallies.get('total')).toEqual({ _id: 'total', count: last, last: String(last) });
};

/** The store as the runner sees it, reporting `rollbacks()` as its count of lost writes. */
const reportingRollbacks = (readStore: ReadStore, rollbacks: () => number): ReadStore =>
  new Proxy(readStore, {
    get(target, property) {
      if (property === 'rollbacks') return rollbacks();
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });

describe('projection runner', () => {
  it('applies a batch through one unit of work and checkpoints after its writes; a failure retries the batch', async () => {
    const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 20 });
    const readStore = embeddedReadStore();
    await eventStore.append('tally-1', Array.from({ length: 10 }, (_, i) => event(i + 1)));
    let attemptsAtFive = 0;
    const flaky = defineProjection({
      name: 'flaky',
      collections: ['flaky_docs'],
      streams: [tallyEvents],
      async apply(recorded, store) {
        await store.collection('flaky_docs').upsert({ _id: String(recorded.data.n) }, recorded.position);
        if (recorded.data.n === 5 && attemptsAtFive++ === 0) throw new Error('transient');
      },
    });
    const bulk = vi.spyOn(readStore.collection('tallies'), 'bulkWrite');
    const running = await startProjections(eventStore, readStore, [tallyProjection, flaky], pino({ level: 'silent' }));
    const head = await eventStore.headPosition();
    try {
      expect(await readStore.waitForCheckpoints(['tally', 'flaky'], head, 5000)).toBe(true);
    } finally {
      await running.stop();
    }
    expect(attemptsAtFive).toBe(2);
    const tallies = readStore.collection<Tally>('tallies');
    expect(await tallies.get('total')).toEqual({ _id: 'total', count: 10, last: '10' });
    expect((await tallies.find({}, { sort: { _id: 1 } })).map((doc) => doc._id)).toEqual(['n1', 'n10', 'n3', 'n4', 'n6', 'n7', 'n9', 'total']);
    // One bulk write for the whole batch; the retried batch skips tally by its checkpoint.
    expect(bulk).toHaveBeenCalledTimes(1);
    expect(await readStore.collection('flaky_docs').count()).toBe(10);
    await eventStore.close();
  });

  it('after a failed batch, applies again what a read store that lost acknowledged writes no longer has', async () => {
    const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 20 });
    const readStore = embeddedReadStore();
    let failNextWrite = false;
    const unreachable = () => Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' });
    // The read store as the runner sees it: the next batch's writes fail once, as while the server is down.
    const flaky = new Proxy(readStore, {
      get(target, property) {
        if (property === 'collection') {
          return (name: string) => {
            const collection = target.collection(name);
            return new Proxy(collection, {
              get(inner, method) {
                const value = Reflect.get(inner, method);
                if (method !== 'bulkWrite') return typeof value === 'function' ? value.bind(inner) : value;
                return async (...args: unknown[]) => {
                  if (failNextWrite) {
                    failNextWrite = false;
                    throw unreachable();
                  }
                  return value.apply(inner, args);
                };
              },
            });
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    // The server comes back without what it had acknowledged (its last writes never reached its
    // disk): documents and checkpoint gone. The next batch's writes fail once, while it is down.
    await projectsAgainAfterLoss(eventStore, readStore, flaky, () => {
      failNextWrite = true;
    });
    expect(failNextWrite).toBe(false);
    await eventStore.close();
  });

  /** The loss scenario on a store that reports it only through its count of rollbacks. */
  const afterReportedLoss = async (options: { eventsAfter?: boolean; checkpointKept?: boolean; keptUpTo?: number } = {}) => {
    const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 20 });
    const readStore = embeddedReadStore();
    let rollbacks = 0;
    await projectsAgainAfterLoss(eventStore, readStore, reportingRollbacks(readStore, () => rollbacks), () => (rollbacks += 1), options);
    await eventStore.close();
  };

  // The embedded store as after SQLite rolled its open transaction back (a full disk): documents
  // and checkpoint since the last commit gone, counted in `rollbacks`; later writes succeed.
  it('applies again what a store lost when it reports a rollback, though no write of the runner failed', () => afterReportedLoss());

  // The Mongo read store counts its server's returns as rollbacks: the server came back without
  // its last acknowledged writes, and nothing is written after.
  it('applies again what a store lost between batches though no event follows (a MongoDB server restarted while the runner was idle)', () =>
    afterReportedLoss({ eventsAfter: false }));

  it("applies again the last batches' events when a store reports a loss but kept its checkpoint (its connections took the writes out of order)", () =>
    afterReportedLoss({ eventsAfter: false, checkpointKept: true }));

  // The replay then runs over documents that reflect part of it: the events they reflect must not
  // be counted again (the unit of work drops them as the store's guard does, and reads the stored count).
  it('counts nothing twice when the store kept part of what it reports lost (a counter as of an earlier event)', () =>
    afterReportedLoss({ eventsAfter: false, checkpointKept: true, keptUpTo: 4 }));

  it('rebuilds to the head batch by batch, reading back earlier writes of the batch', async () => {
    const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 20 });
    const readStore = embeddedReadStore();
    await eventStore.append('tally-1', Array.from({ length: 7 }, (_, i) => event(i + 1)));
    await eventStore.append('other-1', [event(100)]);
    const progress: bigint[] = [];
    const position = await projectToHead(eventStore, readStore, tallyProjection, { batchSize: 3, onProgress: (at) => progress.push(at) });
    expect(position).toBe(await eventStore.headPosition());
    expect(progress).toHaveLength(3);
    expect(await readStore.getCheckpoint('tally')).toBe(position);
    expect(await readStore.collection<Tally>('tallies').get('total')).toEqual({ _id: 'total', count: 7, last: '7' });
    expect(await readStore.collection('tallies').count()).toBe(6);
    await eventStore.close();
  });
});

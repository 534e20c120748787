import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { voteDecider } from '../domain/votes/decide.ts';
import { voteStream } from '../domain/votes/vote.ts';
import { favouriteDecider } from '../domain/favourites/decide.ts';
import { favouriteStream } from '../domain/favourites/favourite.ts';
import { handleCommand, type CommandContext } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { mongoReadStore } from '../infrastructure/read-store/mongo.ts';
import type { Collection, Doc, ReadStore, WriteOp } from '../infrastructure/read-store/port.ts';
import { projections } from './index.ts';
import { projectToHead, startProjections } from './runner.ts';

/**
 * A crash in the middle of a projection batch — part of one collection's bulk write landed, or
 * every write but no checkpoint, or some projections' checkpoints but not the others' — leaves
 * read models that, once a restarted runner caught up, equal a replay of the log into an empty
 * store. The "crash" is a read store that stops answering at the chosen point (every later call
 * fails, as a dead process sends nothing more); the restart runs on the same documents.
 * Embedded store always; MongoDB too when MONGO_URL is set.
 */

type Fault = 'half a bulk write' | 'writes but no checkpoint' | 'some checkpoints';

const CRASHED = new Error('crashed');

/** The store until `arm()`ed, then dead from the fault point on (see Fault). */
const crashing = (store: ReadStore, fault: Fault) => {
  let armed = false;
  let dead = false;
  let checkpointsLetThrough = 0;
  const alive = () => {
    if (dead) throw CRASHED;
  };
  const collection = <T extends Doc>(name: string): Collection<T> => {
    const target = store.collection<T>(name);
    return new Proxy(target, {
      get(object, property) {
        if (property === 'bulkWrite') {
          return async (ops: readonly WriteOp<T>[]) => {
            alive();
            if (armed && fault === 'half a bulk write' && name === 'votes' && ops.length > 1) {
              await target.bulkWrite(ops.slice(0, Math.ceil(ops.length / 2)));
              dead = true;
              throw CRASHED;
            }
            return target.bulkWrite(ops);
          };
        }
        const value = Reflect.get(object, property, object) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          alive();
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  };
  const view: ReadStore = {
    collection,
    getCheckpoint: async (name) => (alive(), store.getCheckpoint(name)),
    async setCheckpoint(name, position) {
      alive();
      if (armed && fault === 'writes but no checkpoint') {
        dead = true;
        throw CRASHED;
      }
      if (armed && fault === 'some checkpoints' && checkpointsLetThrough++ >= 3) {
        dead = true;
        throw CRASHED;
      }
      return store.setCheckpoint(name, position);
    },
    waitForCheckpoints: (names, position, timeoutMs) => store.waitForCheckpoints(names, position, timeoutMs),
    drop: (names, checkpoints) => store.drop(names, checkpoints),
    close: async () => undefined,
  };
  return { store: view, arm: () => (armed = true), crashed: () => dead };
};

const context: CommandContext = { accountId: null, requestId: null, actor: 'test' };
const now = '2026-01-01T00:00:00.000Z';
let nextId = 1;

/** Votes and favourites of two accounts on a few images; some of the earlier ones deleted again. */
type Written = { id: number; account: string };
const writeSome = async (eventStore: EventStore, earlier: { votes: Written[]; favourites: Written[] }) => {
  const votes: Written[] = [];
  const favourites: Written[] = [];
  for (let i = 0; i < 24; i++) {
    const account = i % 2 === 0 ? 'acc-a' : 'acc-b';
    const voteId = nextId++;
    await handleCommand(
      eventStore,
      voteStream(voteId),
      voteDecider,
      { type: 'CastVote', vote_id: voteId, account_id: account, image_id: `img-${i % 5}`, sub_id: i % 3 === 0 ? 'sub' : null, value: i % 4 === 0 ? -1 : 1, country_code: null, ip_address: null, now },
      { ...context, accountId: account },
      { newStream: true },
    );
    votes.push({ id: voteId, account });
    if (i % 4 === 0) {
      const favouriteId = nextId++;
      await handleCommand(
        eventStore,
        favouriteStream(favouriteId),
        favouriteDecider,
        { type: 'AddFavourite', favourite_id: favouriteId, account_id: account, image_id: `img-${i}`, sub_id: null, country_code: null, client_ip_address: null, now },
        { ...context, accountId: account },
      );
      favourites.push({ id: favouriteId, account });
    }
  }
  for (const { id, account } of earlier.votes.filter((_, i) => i % 3 === 0)) {
    await handleCommand(eventStore, voteStream(id), voteDecider, { type: 'DeleteVote', account_id: account, now }, { ...context, accountId: account });
  }
  for (const { id, account } of earlier.favourites.slice(0, 2)) {
    await handleCommand(eventStore, favouriteStream(id), favouriteDecider, { type: 'DeleteFavourite', account_id: account, now }, { ...context, accountId: account });
  }
  return { votes, favourites };
};

const silent = pino({ level: 'silent' });
const names = projections.map((projection) => projection.name);

/** Every live document of every projection's collections, by collection, sorted by _id. */
const contents = async (store: ReadStore) => {
  const all: Record<string, Doc[]> = {};
  for (const projection of projections) {
    for (const name of projection.collections) all[name] = await store.collection(name).find({}, { sort: { _id: 1 } });
  }
  return all;
};

const until = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the fault never struck');
    await delay(10);
  }
};

type StoreFactory = () => Promise<ReadStore>;
const adapters: [string, StoreFactory][] = [['embedded', async () => embeddedReadStore()]];
if (process.env.MONGO_URL) {
  adapters.push(['MongoDB', async () => mongoReadStore(process.env.MONGO_URL as string, { dbName: `crash_batch_${randomUUID().slice(0, 8)}` })]);
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

describe.each(adapters)('a crash in the middle of a projection batch (%s read store)', (_adapter, openStore) => {
  it.each<Fault>(['half a bulk write', 'writes but no checkpoint', 'some checkpoints'])(
    'after %s, a restarted runner leaves read models equal to a replay',
    { timeout: 120_000 },
    async (fault) => {
      const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 20 });
      const readStore = await openStore();
      const replayStore = await openStore();
      const dropAndClose = (store: ReadStore) => async () => {
        await store.drop(
          projections.flatMap((projection) => projection.collections),
          names,
        );
        await store.close();
      };
      opened.push(() => eventStore.close(), dropAndClose(readStore), dropAndClose(replayStore));

      // Before the crash: a first round projected and checkpointed normally.
      const first = await startProjections(eventStore, readStore, projections, silent);
      const round1 = await writeSome(eventStore, { votes: [], favourites: [] });
      try {
        expect(await readStore.waitForCheckpoints(names, await eventStore.headPosition(), 30_000)).toBe(true);
      } finally {
        await first.stop();
      }

      // The crash: the next batch (new votes and favourites, deletes of earlier ones, all in one
      // batch) dies at the fault.
      const round2 = await writeSome(eventStore, round1);
      const faulty = crashing(readStore, fault);
      faulty.arm();
      const crashing1 = await startProjections(eventStore, faulty.store, projections, silent);
      await until(faulty.crashed, 30_000);
      await crashing1.stop();
      const crashedAt = await contents(readStore);

      // The restart on the same documents, more writes after it, caught up.
      const second = await startProjections(eventStore, readStore, projections, silent);
      await writeSome(eventStore, round2);
      const head = await eventStore.headPosition();
      try {
        expect(await readStore.waitForCheckpoints(names, head, 30_000)).toBe(true);
      } finally {
        await second.stop();
      }

      for (const projection of projections) await projectToHead(eventStore, replayStore, projection, { until: head });
      const recovered = await contents(readStore);
      const replayed = await contents(replayStore);
      expect(replayed.votes.length).toBeGreaterThan(40);
      expect(recovered).toEqual(replayed);
      // The fault did strike mid-batch: what the crash left differed from the end state.
      expect(crashedAt).not.toEqual(replayed);
    },
  );
});

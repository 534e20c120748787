import { setTimeout as delay } from 'node:timers/promises';
import {
  Long,
  MongoBulkWriteError,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection as MongoCollectionHandle,
  type Db,
  type Document,
  type Filter as MongoFilter,
} from 'mongodb';
import { mongoClient } from '../mongo-client.ts';
import { countReturns } from '../mongo-reachability.ts';
import { freshReads } from '../coalesce.ts';
import { planByIndexes, planStages } from './index-match.ts';
import { idBatcher } from './id-batcher.ts';
import type { Collection, CountOptions, Doc, Filter, FindOptions, IndexKeys, QueryPlan, ReadStore, Stored, WriteOp } from './port.ts';
import { recentCounts } from './recent-counts.ts';

/**
 * Read models on MongoDB (or a Mongo-wire server such as FerretDB): no transactions, change
 * streams or $lookup. Each document carries `_position` (the event position that last wrote it,
 * an int64) and `_deleted` (tombstone). A guarded write filters on `_position < position`: when
 * the stored document is newer the filter misses, the upsert collides on _id, and the write is
 * dropped — so two projector instances, or a replay, never move a document backwards.
 * On FerretDB the guard is a read just before the write instead (see Server): replays behave the
 * same; two projector instances racing on one document may briefly write an older version, which
 * the lagging instance overwrites when it reaches the newer event.
 */
type StoredDoc = { _id: string } & Document;

const INTERNAL = { _position: 0, _deleted: 0 } as const;
const LIVE = { _deleted: { $ne: true } };

const DUPLICATE_KEY = 11000;
const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === DUPLICATE_KEY;

const toLong = (position: bigint): Long => Long.fromBigInt(position);
const fromLong = (value: unknown): bigint => BigInt(String(value));

/** A bulk write whose only failures are duplicate keys: guarded writes that met a document at or past them. */
const onlyGuardedMisses = (error: unknown): boolean =>
  error instanceof MongoBulkWriteError &&
  Array.isArray(error.writeErrors) &&
  error.writeErrors.length > 0 &&
  error.writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY) &&
  !error.result?.getWriteConcernError();

/**
 * What the adapter must know about the server. FerretDB 1.x (SQLite backend) pushes down only a
 * bare `{ _id }` filter, and even that is not served by its _id index (measured: an update by _id
 * takes ~1 ms on an empty collection and ~20 ms at 3,000 documents): every filtered write scans
 * the collection, and a guarded filter scans it in Go — only inserts stay cheap. And an
 * update command keeps a pooled SQLite connection per statement until the command ends (its pool
 * holds 100), so one bulk of ~100 updates, or several big ones at once, deadlock that database for
 * good. On FerretDB a bulk write therefore reads the stored positions of all its ids with one
 * `$in` find (one scan), inserts the new documents in one insertMany, and replaces the others by
 * bare _id (FerretDB's own guarded update is a read-then-write as well) in small bulks, few at a time.
 *
 * The PostgreSQL backend has the same shape of problem: for each statement of an update command
 * FerretDB v1.24 opens a query that keeps one pooled PostgreSQL connection until the whole command
 * ends (msg_update.go defers each statement's close to the end of the command) and takes one more
 * for the statement's write. So the update statements in flight at once, FERRET_CHUNK ×
 * FERRET_COMMANDS_IN_FLIGHT per process (checkpoints included), must stay well below FerretDB's
 * pool (scripts/dev-servers/ferretdb.sh sizes it, FERRETDB_POSTGRESQL_POOL), or it waits for ever.
 */
type Server = { ferret: boolean; slot: <R>(work: () => Promise<R>) => Promise<R> };

const FERRET_CHUNK = 16;
const FERRET_COMMANDS_IN_FLIGHT = 4;

/** Runs at most `limit` tasks at once. */
const limiter = (limit: number) => {
  let running = 0;
  const queue: (() => void)[] = [];
  return async <R>(work: () => Promise<R>): Promise<R> => {
    if (running >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    running += 1;
    try {
      return await work();
    } finally {
      running -= 1;
      queue.shift()?.();
    }
  };
};

const isFerret = async (db: Db): Promise<boolean> => {
  const info = await db.admin().command({ buildInfo: 1 }).catch(() => ({}) as Document);
  return 'ferretdbVersion' in info;
};

type GuardedWrite = {
  id: string;
  position: bigint;
  /** The write with the guard in its filter (atomic on MongoDB). */
  guarded: AnyBulkWriteOperation<StoredDoc>;
  /** The same write by bare _id, for after the guard was checked by a read. */
  bare: AnyBulkWriteOperation<StoredDoc>;
  /** The same write as an insert, for after a read found no document. */
  insert: AnyBulkWriteOperation<StoredDoc>;
};

const MAX_ROUNDS = 20;

const positionOf = (doc: Document | null, field: string): bigint => (doc?.[field] === undefined || doc[field] === null ? -1n : fromLong(doc[field]));

/** The stored positions of `ids`, with one `$in` find. */
const storedPositions = async (collection: MongoCollectionHandle<StoredDoc>, field: string, ids: string[]) => {
  const docs = await collection.find({ _id: { $in: ids } } as MongoFilter<StoredDoc>, { projection: { [field]: 1 } }).toArray();
  return new Map(docs.map((doc) => [String(doc._id), positionOf(doc, field)]));
};

const chunked = <X>(items: X[], size: number): X[][] => {
  const chunks: X[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
};

/**
 * Guarded writes (at most one per _id) as one unordered bulk write with the guard in each filter
 * (atomic on MongoDB), until each has landed or met a stored position at or past its own. A
 * duplicate key is a guarded miss — but not to be taken at its word: FerretDB stops an update
 * batch at its first error whatever `ordered` says (FerretDB#2612) without saying which writes
 * ran. So after such an error the positions are read, the covered writes dropped and the rest sent
 * again: two rounds unless other writers keep racing (replays and second projectors only).
 */
const writeGuarded = async (collection: MongoCollectionHandle<StoredDoc>, field: string, writes: GuardedWrite[]): Promise<void> => {
  let remaining = writes;
  for (let round = 0; remaining.length > 0; round++) {
    if (round === MAX_ROUNDS) throw new Error(`guarded bulk write on ${collection.collectionName} did not settle`);
    if (round > 0) {
      const positions = await storedPositions(collection, field, remaining.map((write) => write.id));
      remaining = remaining.filter((write) => (positions.get(write.id) ?? -1n) < write.position);
      if (remaining.length === 0) return;
    }
    try {
      await collection.bulkWrite(
        remaining.map((write) => write.guarded),
        { ordered: false },
      );
      return;
    } catch (error) {
      if (!onlyGuardedMisses(error)) throw error;
    }
  }
};

/**
 * FerretDB: most projected batches hold only new documents (votes, deliveries, favourites), and an
 * insert is the one write FerretDB does without scanning the collection — the read of the stored
 * positions is such a scan. So the whole batch is first tried as one insert: all new, done. A
 * duplicate key means some document exists; the inserts made before it stopped are harmless to
 * the read-first path that follows (their stored position is the write's own, so it drops them).
 */
const insertedAll = async (collection: MongoCollectionHandle<StoredDoc>, writes: GuardedWrite[], server: Server): Promise<boolean> => {
  try {
    await server.slot(() => collection.bulkWrite(writes.map((write) => write.insert), { ordered: true }));
    return true;
  } catch (error) {
    if (!onlyGuardedMisses(error)) throw error;
    return false;
  }
};

/**
 * The FerretDB way (see Server): the guard is one read of the stored positions, then new
 * documents are inserted together and the others replaced by bare _id, FERRET_CHUNK per command.
 * A duplicate key (an insert that raced another writer) sends that part round again.
 */
const writeReadFirst = async (collection: MongoCollectionHandle<StoredDoc>, writes: GuardedWrite[], server: Server): Promise<void> => {
  if (await insertedAll(collection, writes, server)) return;
  let remaining = writes;
  for (let round = 0; remaining.length > 0; round++) {
    if (round === MAX_ROUNDS) throw new Error(`guarded bulk write on ${collection.collectionName} did not settle`);
    const positions = await storedPositions(collection, '_position', remaining.map((write) => write.id));
    remaining = remaining.filter((write) => (positions.get(write.id) ?? -1n) < write.position);
    const failed: GuardedWrite[] = [];
    const send = async (part: GuardedWrite[], ops: AnyBulkWriteOperation<StoredDoc>[]) => {
      try {
        await server.slot(() => collection.bulkWrite(ops, { ordered: false }));
      } catch (error) {
        if (!onlyGuardedMisses(error)) throw error;
        failed.push(...part);
      }
    };
    const inserts = remaining.filter((write) => !positions.has(write.id));
    const replaces = remaining.filter((write) => positions.has(write.id));
    await Promise.all([
      ...(inserts.length > 0 ? [send(inserts, inserts.map((write) => write.insert))] : []),
      ...chunked(replaces, FERRET_CHUNK).map((chunk) => send(chunk, chunk.map((write) => write.bare))),
    ]);
    remaining = failed;
  }
};

/** Matches the document only while it has not seen `position` (absent documents upsert). */
const guard = (id: string, position: bigint) =>
  ({ _id: id, $or: [{ _position: { $lt: toLong(position) } }, { _position: { $exists: false } }] }) as MongoFilter<StoredDoc>;

const strip = <T extends Doc>(doc: Document | null): T | null => {
  if (!doc) return null;
  const { _position: _p, _deleted: _d, ...rest } = doc;
  return rest as T;
};

/** Reads by _id of one collection, gathered per turn of the event loop into one `$in` find (see id-batcher.ts). */
type ByIds = (ids: readonly string[]) => Promise<Map<string, StoredDoc>>;

const byIdsOf = (db: Db, name: string): ByIds =>
  idBatcher(async (ids) => {
    const docs = await db
      .collection<StoredDoc>(name)
      .find({ _id: { $in: ids } } as MongoFilter<StoredDoc>)
      .toArray();
    return new Map(docs.map((doc) => [String(doc._id), doc]));
  });

class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly db: Db,
    private readonly name: string,
    private readonly server: Server,
    /** Null on FerretDB, which answers `$in` by scanning the collection (see getMany). */
    private readonly byIds: ByIds | null,
    /** The store's counts callers accept somewhat old (count's maxAgeMs). */
    private readonly recent: ReturnType<typeof recentCounts>,
    /** The highest checkpoint of a projection this process has seen (see ReadStore.knownCheckpoint). */
    private readonly known: (projection: string) => bigint | null,
  ) {}

  private get collection() {
    return this.db.collection<StoredDoc>(this.name);
  }

  private live(filter: Filter | undefined): MongoFilter<StoredDoc> {
    return (filter && Object.keys(filter).length > 0 ? { $and: [filter, LIVE] } : LIVE) as MongoFilter<StoredDoc>;
  }

  /**
   * MongoDB: with the other reads by id of this turn in one `$in` (see byIdsOf). FerretDB: by bare
   * _id (the one filter it answers from its primary key).
   */
  async get(id: string): Promise<T | null> {
    const doc = this.byIds
      ? ((await this.byIds([id])).get(id) ?? null)
      : await this.collection.findOne({ _id: id } as MongoFilter<StoredDoc>, { projection: { _position: 0 } });
    return doc?._deleted === true ? null : strip<T>(doc);
  }

  async getMany(ids: readonly string[]): Promise<Map<string, T>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, T>();
    if (unique.length === 0) return found;
    if (this.server.ferret) {
      // FerretDB v1 answers only a bare _id equality from its primary key ($in scans the collection).
      const docs = await Promise.all(unique.map((id) => this.server.slot(() => this.get(id))));
      docs.forEach((doc, i) => doc && found.set(unique[i], doc));
      return found;
    }
    for (const [id, doc] of await (this.byIds as ByIds)(unique)) if (doc._deleted !== true) found.set(id, strip<T>(doc) as T);
    return found;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const docs = this.byIds
      ? [...(await this.byIds(unique)).values()]
      : await Promise.all(unique.map((id) => this.server.slot(() => this.collection.findOne({ _id: id } as MongoFilter<StoredDoc>))));
    const found = new Map<string, Stored<T>>();
    for (const doc of docs) {
      if (doc) found.set(String(doc._id), { doc: doc._deleted === true ? null : strip<T>(doc), position: positionOf(doc, '_position') });
    }
    return found;
  }

  private cursor(filter: Filter | undefined, options: FindOptions) {
    let cursor = this.collection.find(this.live(filter), { projection: INTERNAL });
    if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return cursor;
  }

  async find(filter?: Filter, options: FindOptions = {}): Promise<T[]> {
    return (await this.cursor(filter, options).toArray()).map((doc) => strip<T>(doc) as T);
  }

  /**
   * The server's own explain (a COLLSCAN scans, a SORT stage sorts in memory); a server that has
   * no explain command (the Mongo-wire test server) is answered from the collection's indexes by
   * the rule MongoDB's planner follows (index-match.ts).
   */
  async explain(filter?: Filter, options: FindOptions = {}): Promise<QueryPlan> {
    try {
      const explained = (await this.cursor(filter, options).explain('queryPlanner')) as Document;
      const winning = explained.queryPlanner?.winningPlan;
      const stages = planStages(winning);
      // A server whose explain has no MongoDB plan (FerretDB answers with its backend's) is planned by its indexes.
      if (stages.length > 0) return { scans: stages.includes('COLLSCAN'), sortsInMemory: stages.includes('SORT'), detail: JSON.stringify(winning) };
    } catch (error) {
      if (!(error instanceof MongoServerError)) throw error;
    }
    const indexes = await this.collection
      .listIndexes()
      .toArray()
      .catch(() => [] as Document[]);
    return planByIndexes(
      indexes.map((index) => index.key as IndexKeys),
      filter,
      options.sort,
    );
  }

  async count(filter?: Filter, options: CountOptions = {}): Promise<number> {
    const walk = () => this.collection.countDocuments(this.live(filter));
    if (!options.maxAgeMs) return walk();
    const seen = options.projection ? this.known(options.projection) : null;
    return this.recent(`${this.name}\u0000${JSON.stringify(filter ?? {})}`, { maxAgeMs: options.maxAgeMs, seen, atLeast: options.atLeast }, walk);
  }

  async sample(filter: Filter, size: number): Promise<T[]> {
    // $sample is not available on every Mongo-wire server: draw among the matching ids instead.
    const ids = (await this.collection.find(this.live(filter), { projection: { _id: 1 } }).toArray()).map((doc) => doc._id);
    for (let i = ids.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    const chosen = ids.slice(0, size);
    if (chosen.length === 0) return [];
    const docs = await this.collection.find({ _id: { $in: chosen } } as MongoFilter<StoredDoc>, { projection: INTERNAL }).toArray();
    const byId = new Map(docs.map((doc) => [String(doc._id), doc]));
    return chosen.map((id) => strip<T>(byId.get(String(id)) ?? null)).filter((doc): doc is T => doc !== null);
  }

  private replacement(op: WriteOp<T>): Document {
    const body: Document = op.type === 'upsert' ? { ...op.doc, _deleted: false } : { _deleted: true };
    delete body._id;
    return { ...body, _position: toLong(op.position) };
  }

  private toWrite(op: WriteOp<T>): GuardedWrite {
    const id = op.type === 'upsert' ? op.doc._id : op.id;
    const replacement = this.replacement(op);
    return {
      id,
      position: op.position,
      guarded: { replaceOne: { filter: guard(id, op.position), replacement, upsert: true } },
      bare: { replaceOne: { filter: { _id: id } as MongoFilter<StoredDoc>, replacement, upsert: true } },
      insert: { insertOne: { document: { ...replacement, _id: id } } },
    };
  }

  /** One guarded write; `written` is false when the stored document had already seen `position`. */
  private async writeOne(op: WriteOp<T>): Promise<{ written: boolean; existed: boolean }> {
    const id = op.type === 'upsert' ? op.doc._id : op.id;
    const needsRead = this.server.ferret || op.type === 'delete';
    const before = needsRead ? await this.collection.findOne({ _id: id } as MongoFilter<StoredDoc>, { projection: { _position: 1, _deleted: 1 } }) : null;
    const existed = before !== null && before._deleted !== true;
    if (this.server.ferret && positionOf(before, '_position') >= op.position) return { written: false, existed };
    try {
      if (this.server.ferret && before === null) {
        await this.collection.insertOne({ ...this.replacement(op), _id: id });
        return { written: true, existed };
      }
      const filter = this.server.ferret ? ({ _id: id } as MongoFilter<StoredDoc>) : guard(id, op.position);
      const result = await this.server.slot(() => this.collection.replaceOne(filter, this.replacement(op), { upsert: true }));
      return { written: result.matchedCount + result.upsertedCount > 0, existed };
    } catch (error) {
      if (isDuplicateKey(error)) return { written: false, existed };
      throw error;
    }
  }

  async upsert(doc: T, position: bigint): Promise<boolean> {
    return (await this.writeOne({ type: 'upsert', doc, position })).written;
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    const { written, existed } = await this.writeOne({ type: 'delete', id, position });
    return written && existed;
  }

  /**
   * MongoDB: one unordered bulk write of guarded replaceOne upserts (a delete writes its
   * tombstone). FerretDB: guarded by one read first, then inserts and replaces (see Server).
   */
  async bulkWrite(ops: readonly WriteOp<T>[]): Promise<void> {
    if (ops.length === 0) return;
    const writes = ops.map((op) => this.toWrite(op));
    if (this.server.ferret) await writeReadFirst(this.collection, writes, this.server);
    else await writeGuarded(this.collection, '_position', writes);
  }

  async createIndex(keys: string | IndexKeys): Promise<void> {
    await this.collection.createIndex(typeof keys === 'string' ? { [keys]: 1 } : keys);
  }
}

type CheckpointDoc = { _id: string; position: Long };
type Waiter = { names: readonly string[]; position: bigint; deadline: number; afterPoll: number; settle: (reached: boolean | Error) => void };

/**
 * Checkpoints for many readers at the price of one: every read-your-writes wait of the process
 * first checks the highest positions seen so far (a checkpoint only grows, and this process's own
 * setCheckpoint feeds them too), and the ones still waiting share ONE poll loop that reads every
 * checkpoint with a single find every `pollIntervalMs`, and only while someone waits. A waiter
 * resolves false at its deadline, but never before one poll that started after it arrived: a
 * timeout of 0 still answers from the server, as a one-shot check must.
 *
 * setCheckpoint calls made in the same turn (the runner stores every projection's at once), or
 * while an earlier write of checkpoints is on its way (the relay's, another batch's), are written
 * together once it ended: one write of checkpoints in flight at a time, however many subscriptions
 * move them. Each caller's promise settles with the write that carried its position. Checkpoints this process knows to
 * exist that move to the same position (a batch's, for every projection) go as ONE `updateMany`
 * guarded by `$lt` (on FerretDB one statement instead of one transaction per checkpoint); the
 * others as guarded upserts in one unordered bulk write.
 */
/** A checkpoint write that creates the document or moves it forward, never back. */
const upsertCheckpoint = (name: string, position: bigint): GuardedWrite => {
  const filter = { _id: name, position: { $lt: toLong(position) } } as MongoFilter<StoredDoc>;
  const write = { updateOne: { filter, update: { $set: { position: toLong(position) } }, upsert: true } };
  return { id: name, position, guarded: write, bare: write, insert: write };
};

/** `stored`: the same collection, as the guarded writes (writeGuarded) take one. */
const checkpointWatcher = (checkpoints: MongoCollectionHandle<CheckpointDoc>, stored: MongoCollectionHandle<StoredDoc>, pollIntervalMs: number, server: Server) => {
  const seen = new Map<string, bigint>();
  const waiters = new Set<Waiter>();
  let polls = 0;
  let polling = false;
  let closed = false;

  const note = (name: string, position: bigint) => {
    if ((seen.get(name) ?? -1n) < position) seen.set(name, position);
  };
  const reached = (names: readonly string[], position: bigint) => names.every((name) => (seen.get(name) ?? 0n) >= position);

  const settleReached = () => {
    for (const waiter of waiters) {
      if (!reached(waiter.names, waiter.position)) continue;
      waiters.delete(waiter);
      waiter.settle(true);
    }
  };

  /** After poll number `poll` answered (or failed): settle its waiters that are done or out of time. */
  const settleAfter = (poll: number, error?: Error) => {
    settleReached();
    const now = Date.now();
    for (const waiter of waiters) {
      if (waiter.afterPoll >= poll) continue;
      if (error) waiter.settle(error);
      else if (now >= waiter.deadline) waiter.settle(false);
      else continue;
      waiters.delete(waiter);
    }
  };

  const pollLoop = async () => {
    polling = true;
    try {
      while (waiters.size > 0 && !closed) {
        const poll = ++polls;
        try {
          for (const doc of await checkpoints.find({}).toArray()) note(doc._id, fromLong(doc.position));
          settleAfter(poll);
        } catch (error) {
          settleAfter(poll, error instanceof Error ? error : new Error(String(error)));
        }
        if (waiters.size === 0) break;
        const nextDeadline = Math.min(...[...waiters].map((waiter) => waiter.deadline));
        await delay(Math.max(1, Math.min(pollIntervalMs, nextDeadline - Date.now())));
      }
    } finally {
      polling = false;
    }
  };

  const wait = (names: readonly string[], position: bigint, timeoutMs: number): Promise<boolean> => {
    if (reached(names, position)) return Promise.resolve(true);
    return new Promise<boolean>((resolve, reject) => {
      waiters.add({
        names,
        position,
        deadline: Date.now() + timeoutMs,
        afterPoll: polls,
        settle: (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome)),
      });
      if (!polling) void pollLoop();
    });
  };

  let pending: { positions: Map<string, bigint>; settle: ((error?: unknown) => void)[] } | null = null;
  const upsertAll = async (entries: readonly (readonly [string, bigint])[]): Promise<void> => {
    if (entries.length === 0) return;
    const writes = entries.map(([name, position]) => upsertCheckpoint(name, position));
    // FerretDB: in chunks and within the command limit like every other update (see Server).
    if (server.ferret) await Promise.all(chunked(writes, FERRET_CHUNK).map((chunk) => server.slot(() => writeGuarded(stored, 'position', chunk))));
    else await writeGuarded(stored, 'position', writes);
  };

  const writePending = async () => {
    const batch = pending;
    pending = null;
    if (!batch) return;
    try {
      const sharing = new Map<bigint, string[]>();
      const single: [string, bigint][] = [];
      for (const [name, position] of batch.positions) {
        if (!seen.has(name)) single.push([name, position]);
        else sharing.set(position, [...(sharing.get(position) ?? []), name]);
      }
      await Promise.all([
        ...[...sharing].map(async ([position, names]) => {
          const filter = { _id: { $in: names }, position: { $lt: toLong(position) } } as MongoFilter<CheckpointDoc>;
          const { matchedCount } = await server.slot(() => checkpoints.updateMany(filter, { $set: { position: toLong(position) } }));
          // Fewer matched: one was already there or further (fine), or was dropped elsewhere: upsert them all, guarded.
          if (matchedCount < names.length) await upsertAll(names.map((name) => [name, position]));
        }),
        upsertAll(single),
      ]);
    } catch (error) {
      for (const settle of batch.settle) settle(error);
      return;
    }
    for (const [name, position] of batch.positions) note(name, position);
    settleReached();
    for (const settle of batch.settle) settle();
  };

  /** The write of pending checkpoints under way (or scheduled); the next one starts when it ended. */
  let writing: Promise<void> = Promise.resolve();
  const set = (name: string, position: bigint): Promise<void> => {
    if (!pending) {
      pending = { positions: new Map(), settle: [] };
      const previous = writing;
      writing = (async () => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await previous;
        await writePending();
      })();
    }
    const batch = pending;
    if ((batch.positions.get(name) ?? -1n) < position) batch.positions.set(name, position);
    return new Promise<void>((resolve, reject) => batch.settle.push((error) => (error === undefined ? resolve() : reject(error))));
  };

  return {
    set,
    wait,
    note,
    known: (name: string): bigint | null => seen.get(name) ?? null,
    /** Dropped checkpoints start again from nothing. */
    forget: (names: readonly string[]) => {
      for (const name of names) {
        seen.delete(name);
        pending?.positions.delete(name);
      }
    },
    close: () => {
      closed = true;
      for (const waiter of waiters) waiter.settle(reached(waiter.names, waiter.position));
      waiters.clear();
    },
  };
};

export type MongoReadStoreOptions = { pollIntervalMs?: number; dbName?: string };

export const mongoReadStore = async (url: string, options: MongoReadStoreOptions = {}): Promise<ReadStore> => {
  const client = mongoClient(url);
  const returns = countReturns(client);
  await client.connect();
  const db = client.db(options.dbName ?? (new URL(url).pathname.slice(1) || 'animal_data'));
  const server: Server = { ferret: await isFerret(db), slot: limiter(FERRET_COMMANDS_IN_FLIGHT) };
  const checkpoints = db.collection<CheckpointDoc>('_checkpoints');
  const watcher = checkpointWatcher(checkpoints, db.collection<StoredDoc>('_checkpoints'), options.pollIntervalMs ?? 10, server);
  const recent = recentCounts();
  const byIds = new Map<string, ByIds>();
  const byIdsFor = (name: string): ByIds | null => {
    if (server.ferret) return null;
    let reader = byIds.get(name);
    if (!reader) byIds.set(name, (reader = byIdsOf(db, name)));
    return reader;
  };
  // Read on every request by caches of reference data (the breed catalogue): concurrent reads of
  // one checkpoint share a lookup that started after they asked (see coalesce.ts).
  const getCheckpoint = freshReads(async (name: string) => {
    const doc = await checkpoints.findOne({ _id: name });
    if (!doc) return null;
    const position = fromLong(doc.position);
    watcher.note(name, position);
    return position;
  });

  return {
    collection: <T extends Doc>(name: string) => new MongoCollection<T>(db, name, server, byIdsFor(name), recent, watcher.known),
    getCheckpoint,
    knownCheckpoint: watcher.known,
    // A server that comes back may have lost writes it acknowledged (its last ones never reached
    // its disk); counted as rollbacks, the runner then reads back the checkpoints the server holds
    // and applies again the events since (a return without a loss costs it those reads).
    get rollbacks() {
      return returns.count;
    },
    setCheckpoint: watcher.set,
    waitForCheckpoints: watcher.wait,
    async drop(collections, names) {
      for (const name of collections) await db.collection(name).drop().catch(() => undefined);
      if (names.length > 0) {
        await checkpoints.deleteMany({ _id: { $in: [...names] } });
        watcher.forget(names);
      }
    },
    async close() {
      watcher.close();
      await client.close();
    },
  };
};

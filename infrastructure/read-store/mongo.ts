import { setTimeout as delay } from 'node:timers/promises';
import { Long, MongoClient, MongoServerError, type Db, type Document, type Filter as MongoFilter } from 'mongodb';
import type { Collection, Doc, Filter, FindOptions, ReadStore } from './port.ts';

/**
 * Read models on MongoDB (or a Mongo-wire server such as FerretDB): no transactions, change
 * streams or $lookup. Each document carries `_position` (the event position that last wrote it,
 * an int64) and `_deleted` (tombstone). A guarded write filters on `_position < position`: when
 * the stored document is newer the filter misses, the upsert collides on _id, and the write is
 * dropped — so two projector instances, or a replay, never move a document backwards.
 */
type StoredDoc = { _id: string } & Document;

const INTERNAL = { _position: 0, _deleted: 0 } as const;
const LIVE = { _deleted: { $ne: true } };

const isDuplicateKey = (error: unknown): boolean => error instanceof MongoServerError && error.code === 11000;

const toLong = (position: bigint): Long => Long.fromBigInt(position);
const fromLong = (value: unknown): bigint => BigInt(String(value));

const strip = <T extends Doc>(doc: Document | null): T | null => {
  if (!doc) return null;
  const { _position: _p, _deleted: _d, ...rest } = doc;
  return rest as T;
};

class MongoCollection<T extends Doc> implements Collection<T> {
  constructor(
    private readonly db: Db,
    private readonly name: string,
  ) {}

  private get collection() {
    return this.db.collection<StoredDoc>(this.name);
  }

  private live(filter: Filter | undefined): MongoFilter<StoredDoc> {
    return (filter && Object.keys(filter).length > 0 ? { $and: [filter, LIVE] } : LIVE) as unknown as MongoFilter<StoredDoc>;
  }

  async get(id: string): Promise<T | null> {
    return strip<T>(await this.collection.findOne({ _id: id, ...LIVE } as unknown as MongoFilter<StoredDoc>, { projection: INTERNAL }));
  }

  async find(filter?: Filter, options: FindOptions = {}): Promise<T[]> {
    let cursor = this.collection.find(this.live(filter), { projection: INTERNAL });
    if (options.sort && Object.keys(options.sort).length > 0) cursor = cursor.sort(options.sort);
    if (options.skip) cursor = cursor.skip(options.skip);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    return (await cursor.toArray()).map((doc) => strip<T>(doc) as T);
  }

  async count(filter?: Filter): Promise<number> {
    return this.collection.countDocuments(this.live(filter));
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
    const docs = await this.collection.find({ _id: { $in: chosen } } as unknown as MongoFilter<StoredDoc>, { projection: INTERNAL }).toArray();
    const byId = new Map(docs.map((doc) => [String(doc._id), doc]));
    return chosen.map((id) => strip<T>(byId.get(String(id)) ?? null)).filter((doc): doc is T => doc !== null);
  }

  private async guardedReplace(id: string, replacement: Document, position: bigint): Promise<boolean> {
    try {
      const result = await this.collection.replaceOne(
        { _id: id, $or: [{ _position: { $lt: toLong(position) } }, { _position: { $exists: false } }] } as unknown as MongoFilter<StoredDoc>,
        { ...replacement, _position: toLong(position) },
        { upsert: true },
      );
      return result.modifiedCount + result.upsertedCount > 0;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async upsert(doc: T, position: bigint): Promise<boolean> {
    const { _id, ...rest } = doc;
    return this.guardedReplace(_id, { ...rest, _deleted: false }, position);
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    const existed = (await this.collection.countDocuments({ _id: id, ...LIVE } as unknown as MongoFilter<StoredDoc>)) > 0;
    const written = await this.guardedReplace(id, { _deleted: true }, position);
    return existed && written;
  }

  async createIndex(field: string): Promise<void> {
    await this.collection.createIndex({ [field]: 1 });
  }
}

export type MongoReadStoreOptions = { pollIntervalMs?: number; dbName?: string };

export const mongoReadStore = async (url: string, options: MongoReadStoreOptions = {}): Promise<ReadStore> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db(options.dbName ?? (new URL(url).pathname.slice(1) || 'animal_data'));
  const checkpoints = db.collection<{ _id: string; position: Long }>('_checkpoints');
  const pollIntervalMs = options.pollIntervalMs ?? 10;

  const getCheckpoint = async (name: string): Promise<bigint | null> => {
    const doc = await checkpoints.findOne({ _id: name });
    return doc ? fromLong(doc.position) : null;
  };

  return {
    collection: <T extends Doc>(name: string) => new MongoCollection<T>(db, name),
    getCheckpoint,
    async setCheckpoint(name, position) {
      try {
        await checkpoints.updateOne({ _id: name, position: { $lt: toLong(position) } }, { $set: { position: toLong(position) } }, { upsert: true });
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    },
    async waitForCheckpoints(names, position, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const docs = await checkpoints.find({ _id: { $in: [...names] } }).toArray();
        const positions = new Map(docs.map((doc) => [doc._id, fromLong(doc.position)]));
        if (names.every((name) => (positions.get(name) ?? 0n) >= position)) return true;
        if (Date.now() >= deadline) return false;
        await delay(Math.min(pollIntervalMs, Math.max(1, deadline - Date.now())));
      }
    },
    async drop(collections, names) {
      for (const name of collections) await db.collection(name).drop().catch(() => undefined);
      if (names.length > 0) await checkpoints.deleteMany({ _id: { $in: [...names] } });
    },
    async close() {
      await client.close();
    },
  };
};

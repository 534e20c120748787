/**
 * The read-model store port: documents in named collections, queried with a small subset of
 * MongoDB's filter language so the embedded and MongoDB adapters answer alike:
 *
 *   { field: value }                      equality (an array field matches if it contains value)
 *   { field: { $in: [...] } }             any of (also $nin, $ne)
 *   { field: { $gt|$gte|$lt|$lte: v } }   ranges on numbers and ISO date strings
 *   { field: { $exists: true|false } }
 *   { field: { $regex: 'abc', $options: 'i' } }
 *   { $or: [filter, ...] }, { $and: [filter, ...] }
 *   dotted paths ('image.id') reach into sub-documents.
 *
 * Writes are guarded by the global position of the event that caused them: a write with a
 * position at or below the one the document already saw changes nothing. Deletes leave a
 * tombstone carrying their position, so replaying an older "created" event after a delete
 * does not bring the document back. Together with checkpoints stored after the writes, this
 * makes every projection idempotent.
 */
export type Doc = { _id: string } & Record<string, unknown>;

export type FilterValue = unknown;
export type Filter = Record<string, FilterValue>;

export type SortSpec = Record<string, 1 | -1>;

export type FindOptions = { sort?: SortSpec; skip?: number; limit?: number };

/**
 * `maxAgeMs`: the caller accepts a count made up to that long ago, provided the store had seen
 * `projection` (the one that writes the collection) reach `atLeast` when the count began — the
 * position the caller's read-your-writes wait reached (FastifyRequest.readPosition), if any.
 */
export type CountOptions = { maxAgeMs?: number; projection?: string; atLeast?: bigint | null };

/**
 * The keys of a compound index, in order, as MongoDB spells them: `{ account_id: 1, id: 1, _id: 1 }`.
 * A list query is served by an index whose keys are its equality fields, then its sort fields (in
 * the sort's directions or all reversed), so it reads only the page it answers.
 */
export type IndexKeys = Record<string, 1 | -1>;

/**
 * How an adapter would run a query (for tests that guard list queries against scans): whether it
 * reads the whole collection (or walks a whole index while the filter narrows nothing the index
 * knows), and whether it sorts the matching documents in memory instead of reading them in index
 * order. `detail` is the engine's own account (SQLite's query plan, MongoDB's winning plan).
 */
export type QueryPlan = {
  scans: boolean;
  sortsInMemory: boolean;
  /**
   * The index matches only some of the filter's equalities (`{f: v}`, `$in`): every entry under the
   * matched part is read and the rest checked on it. Fine for a page (a LIMIT stops the walk), not
   * for a find without one. Adapters that cannot tell leave it out.
   */
  partialPrefix?: boolean;
  detail: string;
};

/** One write of a bulkWrite: an upsert or a delete, guarded by its event position like the single calls. */
export type WriteOp<T extends Doc = Doc> = { type: 'upsert'; doc: T; position: bigint } | { type: 'delete'; id: string; position: bigint };

/** A document as the store holds it, with the position of the event that last wrote it; a tombstone has no document. */
export type Stored<T extends Doc = Doc> = { doc: T | null; position: bigint };

export interface Collection<T extends Doc = Doc> {
  get(id: string): Promise<T | null>;
  /**
   * The stored documents and tombstones of `ids`, each with the position that last wrote it; ids
   * never written are absent. For a unit of work, which must drop a buffered write the store's
   * guard would drop, and must not fold the next event onto it (a replayed event's change to a
   * counter counted twice, a deleted document brought back by its replayed creation).
   */
  getStored(ids: readonly string[]): Promise<Map<string, Stored<T>>>;
  /**
   * Several documents by _id, in as few round trips as the server answers well (MongoDB: one
   * `$in`; FerretDB v1, which scans a collection for `$in`, parallel lookups by _id). Missing and
   * deleted ones are absent from the map.
   */
  getMany(ids: readonly string[]): Promise<Map<string, T>>;
  find(filter?: Filter, options?: FindOptions): Promise<T[]>;
  /**
   * How many match. With `maxAgeMs` (CountOptions) the caller accepts a count shared over many
   * requests, such as the random search's count of every public image. Adapters whose counts are
   * kept exact without a walk (the embedded store's count cache) always answer the current count.
   */
  count(filter?: Filter, options?: CountOptions): Promise<number>;
  /** Up to `size` documents drawn at random from those matching. */
  sample(filter: Filter, size: number): Promise<T[]>;
  /** Inserts or replaces the document unless it already reflects `position`. True if written. */
  upsert(doc: T, position: bigint): Promise<boolean>;
  /** Removes the document (leaving a tombstone at `position`). True if it existed. */
  delete(id: string, position: bigint): Promise<boolean>;
  /**
   * Applies several writes with the same guard and tombstone semantics as upsert/delete, in as few
   * round trips as the adapter can (MongoDB: one unordered bulk write). At most one op per _id:
   * the ops are not applied in order, so callers merge the writes to one document first (the unit
   * of work does). Writes the guard ignores are not errors; nothing is reported per op.
   */
  bulkWrite(ops: readonly WriteOp<T>[]): Promise<void>;
  /**
   * Declares an index: one field (filters use it for equality or $in) or a compound index whose
   * keys match a list query's filter and sort (see IndexKeys). The projection that owns a
   * collection declares its indexes at setup; adapters build them (idempotently).
   */
  createIndex(keys: string | IndexKeys): Promise<void>;
  /** How the adapter runs `find(filter, options)` (see QueryPlan); adapters that cannot tell leave it out. */
  explain?(filter?: Filter, options?: FindOptions): Promise<QueryPlan>;
  /**
   * For each distinct value of `group` among the matches, the match with the highest `by` (the
   * newest vote on each image): one document per group is read, however many match. Adapters that
   * cannot leave it out; the caller then finds every match and keeps the highest itself.
   */
  latestPer?(filter: Filter, group: string, by: string): Promise<T[]>;
}

export interface ReadStore {
  collection<T extends Doc = Doc>(name: string): Collection<T>;
  getCheckpoint(name: string): Promise<bigint | null>;
  /**
   * How many times the store has lost writes it had taken, or may have (the embedded store: SQLite
   * rolled back its open write transaction on a full disk, its checkpoints then read as the file
   * holds them; MongoDB: its server came back after being out of reach, possibly without its last
   * acknowledged writes). A writer that sees the count move reads the checkpoints again and
   * applies the events since (projectors/runner.ts). Stores that cannot lose an acknowledged
   * write leave it out.
   */
  readonly rollbacks?: number;
  /**
   * Without a round trip: the highest value of the checkpoint this process has seen so far (its own
   * setCheckpoint, a wait's poll, a getCheckpoint), null if none. A lower bound of the stored value,
   * which only grows. Adapters whose getCheckpoint is itself a memory read leave it out.
   */
  knownCheckpoint?(name: string): bigint | null;
  /** Stores a checkpoint after (or together with) the writes that led to it. */
  setCheckpoint(name: string, position: bigint): Promise<void>;
  /** Resolves true once every named checkpoint is at or past `position`, false after the timeout. */
  waitForCheckpoints(names: readonly string[], position: bigint, timeoutMs: number): Promise<boolean>;
  /** Removes collections and checkpoints entirely (for rebuilds). */
  drop(collections: readonly string[], checkpoints: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

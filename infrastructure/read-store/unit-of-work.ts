import type { Collection, Doc, Filter, FindOptions, IndexKeys, QueryPlan, ReadStore, Stored, WriteOp } from './port.ts';

type Buffered = { doc: Doc | null; position: bigint };

/**
 * A collection that keeps its writes in memory until flushed: the last write per _id wins, with
 * the same guard as the store (a write at or below the position buffered or stored for that _id
 * changes nothing), and get() answers from the buffer first, then from the documents read for this
 * unit of work (a projection's prefetch through getMany(): one round trip for a batch instead of
 * one per event). Queries over many documents (find, count, sample) flush this collection's buffer
 * and then ask the store — always right, and projections mostly write by id. Flushes run one after
 * the other, so a query never overtakes an earlier flush.
 *
 * The store's guard is mirrored exactly, or a replay would go wrong between flushes: every read
 * learns the position the store holds for the _id, a write at or below it is dropped at once, and
 * a document written without being read first (so its stored position is unknown) is checked
 * against the store the first time it is read back. Otherwise a replayed event the store already
 * reflects would be folded into the next one from memory (a counter counted twice, a deleted
 * document brought back by its replayed creation), and the next event's write, newer than the
 * stored one, would carry the error into the store.
 */
class BufferedCollection<T extends Doc> implements Collection<T> {
  private pending = new Map<string, Buffered>();
  /** Documents read for this unit of work (null: absent or deleted); never ones written since. */
  private fetched = new Map<string, Doc | null>();
  /** The position the store holds for each _id read (-1: never written). */
  private storedAt = new Map<string, bigint>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly target: Collection<T>) {}

  private buffer(id: string, doc: Doc | null, position: bigint): boolean {
    const previous = this.pending.get(id);
    if (previous && previous.position >= position) return false;
    if ((this.storedAt.get(id) ?? -1n) >= position) return false;
    this.pending.set(id, { doc, position });
    this.fetched.delete(id);
    return true;
  }

  /** What the store holds for `ids`, learnt; a buffered write the store's guard would drop is dropped. */
  private async learn(ids: readonly string[]): Promise<void> {
    await this.flushing.catch(() => undefined);
    const stored = await this.target.getStored(ids);
    for (const id of ids) {
      const held = stored.get(id);
      const position = held?.position ?? -1n;
      this.storedAt.set(id, position);
      const buffered = this.pending.get(id);
      if (buffered && buffered.position <= position) this.pending.delete(id);
      if (!this.pending.has(id)) this.fetched.set(id, held?.doc ? { ...held.doc } : null);
    }
  }

  /** Known without asking the store: buffered over a known stored position, or read before. */
  private known(id: string): Doc | null | undefined {
    const buffered = this.pending.get(id);
    if (buffered && this.storedAt.has(id)) return buffered.doc;
    if (buffered) return undefined;
    return this.fetched.get(id);
  }

  async get(id: string): Promise<T | null> {
    let doc = this.known(id);
    if (doc === undefined) {
      await this.learn([id]);
      doc = this.known(id);
    }
    return doc ? ({ ...doc } as T) : null;
  }

  /** Answers from the buffer and earlier reads, asks the store for the rest in one call and keeps what it said. */
  async getMany(ids: readonly string[]): Promise<Map<string, T>> {
    const unique = [...new Set(ids)];
    const missing = unique.filter((id) => this.known(id) === undefined);
    if (missing.length > 0) await this.learn(missing);
    const found = new Map<string, T>();
    for (const id of unique) {
      const doc = this.known(id);
      if (doc) found.set(id, { ...doc } as T);
    }
    return found;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    await this.flush();
    return this.target.getStored(ids);
  }

  async find(filter?: Filter, options?: FindOptions): Promise<T[]> {
    await this.flush();
    return this.target.find(filter, options);
  }

  async count(filter?: Filter): Promise<number> {
    await this.flush();
    return this.target.count(filter);
  }

  async sample(filter: Filter, size: number): Promise<T[]> {
    await this.flush();
    return this.target.sample(filter, size);
  }

  /** True when the buffer took the write (the store's guard may still drop it at flush). */
  async upsert(doc: T, position: bigint): Promise<boolean> {
    return this.buffer(doc._id, { ...doc }, position);
  }

  /** True when the buffer took the delete (whether the document existed is only known at flush). */
  async delete(id: string, position: bigint): Promise<boolean> {
    return this.buffer(id, null, position);
  }

  async bulkWrite(ops: readonly WriteOp<T>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'upsert') this.buffer(op.doc._id, { ...op.doc }, op.position);
      else this.buffer(op.id, null, op.position);
    }
  }

  async createIndex(keys: string | IndexKeys): Promise<void> {
    await this.target.createIndex(keys);
  }

  async explain(filter?: Filter, options?: FindOptions): Promise<QueryPlan> {
    if (!this.target.explain) throw new Error('this read store cannot explain its queries');
    return this.target.explain(filter, options);
  }

  /** Forgets the buffered writes (the collection is being dropped). */
  discard(): void {
    this.pending = new Map();
    this.fetched = new Map();
    this.storedAt = new Map();
  }

  /** Writes the buffer with one bulkWrite; on failure the writes go back into the buffer. */
  flush(): Promise<void> {
    const run = this.flushing.catch(() => undefined).then(() => this.writePending());
    this.flushing = run;
    return run;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const taken = this.pending;
    this.pending = new Map();
    const ops: WriteOp<T>[] = [...taken].map(([id, { doc, position }]) =>
      doc ? { type: 'upsert', doc: doc as T, position } : { type: 'delete', id, position },
    );
    try {
      await this.target.bulkWrite(ops);
    } catch (error) {
      for (const [id, entry] of taken) {
        const newer = this.pending.get(id);
        if (!newer || newer.position < entry.position) this.pending.set(id, entry);
      }
      throw error;
    }
    // A write over a known stored position was taken by the store's guard: the store now holds it.
    for (const [id, { doc, position }] of taken) {
      if (!this.storedAt.has(id)) continue;
      this.storedAt.set(id, position);
      if (!this.pending.has(id)) this.fetched.set(id, doc ? { ...doc } : null);
    }
  }
}

export type UnitOfWork = {
  /** The store as seen through the buffer: collections buffer writes, the rest goes through. */
  store: ReadStore;
  /** Writes every collection's buffered writes (one bulkWrite per collection, side by side). */
  flush(): Promise<void>;
};

/**
 * Batches a projection batch's writes: instead of one awaited round trip per get/upsert/delete,
 * reads of documents written earlier in the batch come from memory and all writes leave in one
 * bulkWrite per collection at flush(). The caller stores checkpoints only after flush(), so the
 * guarantees stay those of single writes: a crash before the flush replays the batch.
 *
 * setCheckpoint through the view flushes first (checkpoints after the writes); close() only
 * flushes — the underlying store belongs to the caller.
 */
export const unitOfWork = (store: ReadStore): UnitOfWork => {
  const collections = new Map<string, BufferedCollection<Doc>>();

  const flush = async (): Promise<void> => {
    await Promise.all([...collections.values()].map((collection) => collection.flush()));
  };

  const view: ReadStore = {
    collection: <T extends Doc>(name: string): Collection<T> => {
      let collection = collections.get(name);
      if (!collection) collections.set(name, (collection = new BufferedCollection<Doc>(store.collection<Doc>(name))));
      return collection as Collection<T>;
    },
    getCheckpoint: (name) => store.getCheckpoint(name),
    async setCheckpoint(name, position) {
      await flush();
      await store.setCheckpoint(name, position);
    },
    waitForCheckpoints: (names, position, timeoutMs) => store.waitForCheckpoints(names, position, timeoutMs),
    async drop(names, checkpoints) {
      for (const name of names) {
        collections.get(name)?.discard();
        collections.delete(name);
      }
      await store.drop(names, checkpoints);
    },
    close: flush,
  };
  return { store: view, flush };
};

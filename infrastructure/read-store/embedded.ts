import { EventEmitter } from 'node:events';
import { openSqlite, type SqliteDatabase } from '../sqlite.ts';
import { getPath, matches, pinnedValues, sortComparator } from './filter.ts';
import type { Collection, Doc, Filter, FindOptions, ReadStore, WriteOp } from './port.ts';

/** An entry whose document is in the file only (evicted from memory; see MemoryCollection). */
const ON_DISK = Symbol('on disk');

/** doc: the document; null: a tombstone; ON_DISK: a document held by the file only. */
type Entry = { doc: Doc | null | typeof ON_DISK; position: bigint };
/** An entry as it is written: with its document or a tombstone. */
type WrittenEntry = { doc: Doc | null; position: bigint };

const indexKey = (value: unknown): unknown => (value === undefined ? null : value);

/** How many documents of one collection a file-backed store keeps in memory by default. */
export const DEFAULT_RESIDENT_DOCS = 10_000;

type FileAccess<T extends Doc> = {
  /** Reads the collection's rows from the file into `target` (its first use). */
  load: (target: MemoryCollection<T>) => void;
  /** One document as the file holds it (null: absent or a tombstone). */
  read: (id: string) => Doc | null;
  /** At most this many documents stay in memory; older ones, once in the file, are read from it. */
  maxResident: number;
  /** Written in memory and not yet in the file (such a document stays in memory). */
  isDirty: (id: string) => boolean;
};

/**
 * One collection with hash indexes on the fields declared through createIndex. Entries with
 * doc === null are tombstones.
 *
 * Its documents are read from the file when it is first used, not when it is opened: a process
 * opens every projection's collections (their indexes are declared at start), but one that never
 * reads or writes a collection (a dispatcher restarted after a flood of votes, which only writes
 * deliveries) never holds its documents.
 *
 * With a file, memory is bounded by design: every entry (id, position, index keys) stays in
 * memory, but at most `maxResident` documents do — the most recently written or read from the
 * file; older ones that the file already holds are dropped (`evict`, after each flush) and read
 * back from the file by id when a query needs them. A collection within the bound answers every
 * query from memory; one beyond it (a delivery log after a 50,000-delivery backlog) answers
 * queries by index from memory and the file, and scans from the file.
 */
class MemoryCollection<T extends Doc> implements Collection<T> {
  private readonly entries = new Map<string, Entry>();
  private readonly indexes = new Map<string, Map<unknown, Set<string>>>();
  /** Ids of the documents held in memory, oldest first (only with a file). */
  private readonly resident = new Map<string, true>();
  private loadFromFile: ((collection: MemoryCollection<T>) => void) | null;

  constructor(
    private readonly onWrite: (id: string, entry: WrittenEntry) => void,
    private readonly file: FileAccess<T> | null = null,
  ) {
    this.loadFromFile = file?.load ?? null;
  }

  /** Whether its documents have been read from the file (see the class comment). */
  get loaded(): boolean {
    return this.loadFromFile === null;
  }

  /** Documents held in memory (the rest of the live ones are in the file only). */
  get residentCount(): number {
    return this.file ? this.resident.size : this.size();
  }

  private materialize(): void {
    const load = this.loadFromFile;
    if (!load) return;
    this.loadFromFile = null;
    load(this);
  }

  /** The entry's document, read from the file when it is held there only. */
  private docOf(id: string, entry: Entry | undefined): Doc | null {
    if (!entry) return null;
    if (entry.doc !== ON_DISK) return entry.doc;
    return this.file?.read(id) ?? null;
  }

  private hold(id: string, doc: Doc | null): void {
    if (!this.file) return;
    this.resident.delete(id);
    if (doc) this.resident.set(id, true);
  }

  /**
   * Drops the oldest documents beyond the bound from memory. Only documents the file holds as
   * they are in memory may go: the store calls this after a flush, and for entries read from or
   * refreshed from the file.
   */
  evict(): void {
    if (!this.file) return;
    let excess = this.resident.size - this.file.maxResident;
    if (excess <= 0) return;
    for (const id of this.resident.keys()) {
      if (excess <= 0) break;
      if (this.file.isDirty(id)) continue;
      this.resident.delete(id);
      const entry = this.entries.get(id);
      if (entry?.doc) entry.doc = ON_DISK;
      excess -= 1;
    }
  }

  private indexAdd(id: string, doc: Doc): void {
    for (const [field, index] of this.indexes) {
      const value = getPath(doc, field);
      for (const key of Array.isArray(value) ? value : [indexKey(value)]) {
        let ids = index.get(key);
        if (!ids) index.set(key, (ids = new Set()));
        ids.add(id);
      }
    }
  }

  private indexRemove(id: string, doc: Doc): void {
    for (const [field, index] of this.indexes) {
      const value = getPath(doc, field);
      for (const key of Array.isArray(value) ? value : [indexKey(value)]) index.get(key)?.delete(id);
    }
  }

  /** Loads an entry read from disk without marking it dirty (and keeps within the bound). */
  load(id: string, entry: WrittenEntry): void {
    this.entries.set(id, entry);
    this.hold(id, entry.doc);
    if (entry.doc) this.indexAdd(id, entry.doc);
    if (this.file && this.resident.size > this.file.maxResident) this.evict();
  }

  /** Takes an entry another process wrote to the file, unless this one already has it or a later one. */
  refresh(id: string, entry: WrittenEntry): void {
    const previous = this.entries.get(id);
    if (previous && previous.position >= entry.position) return;
    const before = this.docOf(id, previous);
    if (before) this.indexRemove(id, before);
    this.load(id, entry);
  }

  private candidates(filter: Filter | undefined): Iterable<Doc> {
    this.materialize();
    for (const [field, index] of this.indexes) {
      const values = pinnedValues(filter, field);
      if (values === null) continue;
      const ids = new Set<string>();
      for (const value of values) for (const id of index.get(indexKey(value)) ?? []) ids.add(id);
      const docs: Doc[] = [];
      for (const id of ids) {
        const doc = this.docOf(id, this.entries.get(id));
        if (doc) docs.push(doc);
      }
      return docs;
    }
    const all: Doc[] = [];
    for (const [id, entry] of this.entries) {
      const doc = this.docOf(id, entry);
      if (doc) all.push(doc);
    }
    return all;
  }

  private matching(filter: Filter | undefined): Doc[] {
    const result: Doc[] = [];
    for (const doc of this.candidates(filter)) if (matches(doc, filter)) result.push(doc);
    return result;
  }

  async get(id: string): Promise<T | null> {
    this.materialize();
    const doc = this.docOf(id, this.entries.get(id));
    return doc ? ({ ...doc } as T) : null;
  }

  async getMany(ids: readonly string[]): Promise<Map<string, T>> {
    this.materialize();
    const found = new Map<string, T>();
    for (const id of ids) {
      const doc = this.docOf(id, this.entries.get(id));
      if (doc) found.set(id, { ...doc } as T);
    }
    return found;
  }

  async find(filter?: Filter, options: FindOptions = {}): Promise<T[]> {
    let docs = this.matching(filter);
    if (options.sort && Object.keys(options.sort).length > 0) docs.sort(sortComparator(options.sort));
    const skip = options.skip ?? 0;
    docs = docs.slice(skip, options.limit === undefined ? undefined : skip + options.limit);
    return docs.map((doc) => ({ ...doc }) as T);
  }

  async count(filter?: Filter): Promise<number> {
    this.materialize();
    return filter && Object.keys(filter).length > 0 ? this.matching(filter).length : this.size();
  }

  private size(): number {
    let n = 0;
    for (const entry of this.entries.values()) if (entry.doc) n += 1;
    return n;
  }

  async sample(filter: Filter, size: number): Promise<T[]> {
    const docs = this.matching(filter);
    for (let i = docs.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [docs[i], docs[j]] = [docs[j], docs[i]];
    }
    return docs.slice(0, size).map((doc) => ({ ...doc }) as T);
  }

  async upsert(doc: T, position: bigint): Promise<boolean> {
    this.materialize();
    const previous = this.entries.get(doc._id);
    if (previous && previous.position >= position) return false;
    const before = this.docOf(doc._id, previous);
    if (before) this.indexRemove(doc._id, before);
    const entry = { doc: { ...doc } as Doc, position };
    this.entries.set(doc._id, entry);
    this.hold(doc._id, entry.doc);
    this.indexAdd(doc._id, entry.doc);
    this.onWrite(doc._id, entry);
    return true;
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    this.materialize();
    const previous = this.entries.get(id);
    if (previous && previous.position >= position) return false;
    const before = this.docOf(id, previous);
    if (before) this.indexRemove(id, before);
    const entry = { doc: null, position };
    this.entries.set(id, entry);
    this.hold(id, null);
    this.onWrite(id, entry);
    return Boolean(before);
  }

  /** In memory, one op after the other; the SQLite file gets them with the next group commit. */
  async bulkWrite(ops: readonly WriteOp<T>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'upsert') await this.upsert(op.doc, op.position);
      else await this.delete(op.id, op.position);
    }
  }

  /** Declared at once; built from the documents held (those read later are indexed as they come). */
  async createIndex(field: string): Promise<void> {
    if (this.indexes.has(field)) return;
    this.indexes.set(field, new Map());
    for (const [id, entry] of this.entries) {
      const doc = this.docOf(id, entry);
      if (doc) this.indexAddOne(field, id, doc);
    }
  }

  private indexAddOne(field: string, id: string, doc: Doc): void {
    const index = this.indexes.get(field) as Map<unknown, Set<string>>;
    const value = getPath(doc, field);
    for (const key of Array.isArray(value) ? value : [indexKey(value)]) {
      let ids = index.get(key);
      if (!ids) index.set(key, (ids = new Set()));
      ids.add(id);
    }
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS documents (
  collection TEXT NOT NULL,
  id         TEXT NOT NULL,
  position   INTEGER NOT NULL,
  body       TEXT,
  PRIMARY KEY (collection, id)
);
CREATE TABLE IF NOT EXISTS checkpoints (
  name     TEXT PRIMARY KEY,
  position INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_position ON documents (collection, position);
`;

/** How long checkpoints and document writes wait in memory before they go to the file together. */
const FLUSH_DELAY_MS = 50;

/** How often the file is checked for checkpoints moved by another process. */
const FOLLOW_INTERVAL_MS = 100;

/**
 * The embedded read store: collections in memory for fast queries (up to `maxResidentDocs`
 * documents each, default DEFAULT_RESIDENT_DOCS; see MemoryCollection), persisted to a SQLite file
 * so a restart does not need a rebuild. Writes are kept in memory and flushed to disk in one
 * transaction together with the checkpoint that covers them, so the file always holds a state
 * at or ahead of its checkpoints (replays from there are harmless: writes are position-guarded).
 * Pass no file for a store that lives only in memory (tests, rebuild scratch space).
 *
 * One process writes the file (the one running the projectors). Another process on the same file
 * (a separate webhook dispatcher, the rebuild CLI's comparison) sees its changes: every 100 ms the
 * checkpoints on disk are compared with those in memory, and when one moved, the documents written
 * since (by position) are read in the same read transaction, then the checkpoints are raised — so
 * waitForCheckpoints and every query in this process follow the writer within about 100 ms.
 * Writing from two processes is not supported: run that topology on MongoDB.
 */
export const embeddedReadStore = (file?: string, options: { followIntervalMs?: number; maxResidentDocs?: number } = {}): ReadStore => {
  const db: SqliteDatabase | null = file ? openSqlite(file) : null;
  db?.exec(SCHEMA);
  db?.defaultSafeIntegers(true);
  const collections = new Map<string, MemoryCollection<Doc>>();
  /** Per collection, the highest position of a document this process holds (read or written). */
  const highest = new Map<string, bigint>();
  const raiseHighest = (name: string, position: bigint) => {
    if ((highest.get(name) ?? -1n) < position) highest.set(name, position);
  };
  const checkpoints = new Map<string, bigint>();
  const dirty = new Map<string, Map<string, WrittenEntry>>();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);

  for (const row of (db?.prepare('SELECT name, position FROM checkpoints').all() ?? []) as { name: string; position: bigint }[]) {
    checkpoints.set(row.name, BigInt(row.position));
  }

  const allRows = db?.prepare('SELECT id, position, body FROM documents WHERE collection = ?');
  const oneRow = db?.prepare('SELECT body FROM documents WHERE collection = ? AND id = ?');
  const upsertRow = db?.prepare('INSERT OR REPLACE INTO documents (collection, id, position, body) VALUES (?, ?, ?, ?)');
  const checkpointRow = db?.prepare('INSERT OR REPLACE INTO checkpoints (name, position) VALUES (?, ?)');
  const flushTx = db?.transaction((checkpointsToStore: Map<string, bigint>) => {
    for (const [collection, entries] of dirty) {
      for (const [id, entry] of entries) {
        upsertRow?.run(collection, id, entry.position, entry.doc ? JSON.stringify(entry.doc) : null);
      }
    }
    for (const [name, position] of checkpointsToStore) checkpointRow?.run(name, position);
  });
  const flush = (checkpointsToStore: Map<string, bigint> = new Map()) => {
    flushTx?.(checkpointsToStore);
    dirty.clear();
    for (const target of collections.values()) target.evict();
  };

  /**
   * Checkpoints count at once, in memory: the documents they cover are already in memory, so
   * waitForCheckpoints and every query of this process see them. The file follows within
   * FLUSH_DELAY_MS: every checkpoint stored meanwhile, and every document written, leave in one
   * transaction (documents at or ahead of the checkpoints on disk, as before). What a crash loses
   * is that last stretch of projection work, which the restart replays from the log (writes are
   * position-guarded): read models are derived, the event log is what must be durable. A failed
   * write keeps everything pending and is tried again; `close` writes what is pending.
   */
  let pending: Map<string, bigint> | null = null;
  let flushTimer: NodeJS.Timeout | null = null;
  let failedFlushes = 0;
  const commitPending = () => {
    flushTimer = null;
    const batch = pending ?? new Map<string, bigint>();
    try {
      flush(batch);
    } catch (error) {
      failedFlushes += 1;
      flushTimer = setTimeout(commitPending, Math.min(5_000, FLUSH_DELAY_MS * 2 ** Math.min(failedFlushes, 7)));
      flushTimer.unref();
      if (failedFlushes === 1) process.emitWarning(`read-models file write failed, retrying: ${String(error)}`);
      return;
    }
    failedFlushes = 0;
    if (pending === batch) pending = null;
  };
  /** Waiters are told once for all the checkpoints stored in one go (a batch stores one per projection). */
  let announcing = false;
  const announceCheckpoints = () => {
    if (announcing) return;
    announcing = true;
    queueMicrotask(() => {
      announcing = false;
      changes.emit('checkpoint');
    });
  };
  const scheduleFlush = () => {
    if (flushTimer || !db) return;
    flushTimer = setTimeout(commitPending, FLUSH_DELAY_MS);
  };

  const collection = <T extends Doc>(name: string): Collection<T> => {
    let existing = collections.get(name);
    if (!existing) {
      const onWrite = (id: string, entry: WrittenEntry) => {
        raiseHighest(name, entry.position);
        if (!db) return;
        let entries = dirty.get(name);
        if (!entries) dirty.set(name, (entries = new Map()));
        entries.set(id, entry);
      };
      const created = new MemoryCollection<Doc>(
        onWrite,
        db
          ? {
              // What the file holds, read on first use (its state now, ahead of or at its checkpoints).
              load: (target) => {
                for (const row of allRows?.iterate(name) as Iterable<{ id: string; position: bigint; body: string | null }>) {
                  target.load(row.id, { doc: row.body ? JSON.parse(row.body) : null, position: BigInt(row.position) });
                  raiseHighest(name, BigInt(row.position));
                }
              },
              read: (id) => {
                const body = (oneRow?.get(name, id) as { body: string | null } | undefined)?.body;
                return body ? JSON.parse(body) : null;
              },
              maxResident: options.maxResidentDocs ?? DEFAULT_RESIDENT_DOCS,
              isDirty: (id) => dirty.get(name)?.has(id) ?? false,
            }
          : null,
      );
      collections.set(name, created);
      existing = created;
    }
    return existing as unknown as Collection<T>;
  };

  const reached = (names: readonly string[], position: bigint) =>
    names.every((name) => (checkpoints.get(name) ?? 0n) >= position);

  // Following another process's writes (see above). Checkpoints and documents come from one read
  // transaction: the writer commits documents together with the checkpoints that cover them.
  const diskCheckpoints = db?.prepare('SELECT name, position FROM checkpoints');
  const writtenSince = db?.prepare('SELECT id, position, body FROM documents WHERE collection = ? AND position > ?');
  const readChanges = db?.transaction(() => {
    const moved = (diskCheckpoints?.all() as { name: string; position: bigint }[]).filter(
      (row) => BigInt(row.position) > (checkpoints.get(row.name) ?? -1n) && !pending?.has(row.name),
    );
    if (moved.length === 0) return null;
    // Collections not read yet are skipped: their first use reads the file as it is then.
    const documents = [...collections]
      .filter(([, target]) => target.loaded)
      .map(([name]) => ({
        name,
        rows: writtenSince?.all(name, highest.get(name) ?? -1n) as { id: string; position: bigint; body: string | null }[],
      }));
    return { moved, documents };
  });
  const follow = () => {
    if (!db?.open) return;
    const changes_ = readChanges?.();
    if (!changes_) return;
    for (const { name, rows } of changes_.documents) {
      const target = collections.get(name);
      if (!target) continue;
      for (const row of rows) {
        target.refresh(row.id, { doc: row.body ? JSON.parse(row.body) : null, position: BigInt(row.position) });
        raiseHighest(name, BigInt(row.position));
      }
    }
    for (const row of changes_.moved) checkpoints.set(row.name, BigInt(row.position));
    changes.emit('checkpoint');
  };
  const follower = db ? setInterval(follow, options.followIntervalMs ?? FOLLOW_INTERVAL_MS) : null;
  follower?.unref();

  return {
    collection,
    async getCheckpoint(name) {
      return checkpoints.get(name) ?? null;
    },
    setCheckpoint(name, position) {
      checkpoints.set(name, position);
      announceCheckpoints();
      if (db) {
        (pending ??= new Map()).set(name, position);
        scheduleFlush();
      }
      return Promise.resolve();
    },
    waitForCheckpoints(names, position, timeoutMs) {
      if (reached(names, position)) return Promise.resolve(true);
      return new Promise((resolve) => {
        const onChange = () => {
          if (!reached(names, position)) return;
          clearTimeout(timer);
          changes.off('checkpoint', onChange);
          resolve(true);
        };
        const timer = setTimeout(() => {
          changes.off('checkpoint', onChange);
          resolve(reached(names, position));
        }, timeoutMs);
        changes.on('checkpoint', onChange);
      });
    },
    async drop(names, checkpointNames) {
      for (const name of names) {
        collections.delete(name);
        highest.delete(name);
        dirty.delete(name);
        db?.prepare('DELETE FROM documents WHERE collection = ?').run(name);
      }
      for (const name of checkpointNames) {
        pending?.delete(name);
        checkpoints.delete(name);
        db?.prepare('DELETE FROM checkpoints WHERE name = ?').run(name);
      }
    },
    async close() {
      if (follower) clearInterval(follower);
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      if (db?.open) {
        flush(pending ?? new Map());
        pending = null;
        db.close();
      }
    },
  };
};

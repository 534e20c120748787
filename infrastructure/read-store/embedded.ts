import { EventEmitter } from 'node:events';
import type BetterSqlite3 from 'better-sqlite3';
import { Database, openSqlite } from '../sqlite.ts';
import { countCache } from './count-cache.ts';
import { getPath, matches, toRegex } from './filter.ts';
import { fieldsOf, jsonPath, toSqlCondition, toSqlOrder, valueOf, type FieldKinds } from './sql-filter.ts';
import type { Collection, Doc, Filter, FindOptions, IndexKeys, QueryPlan, ReadStore, SortSpec, Stored, WriteOp } from './port.ts';
import { chooseIndex, equalityFields } from './index-match.ts';

/**
 * The embedded read store: every collection is a SQLite table of JSON documents, and every query
 * is SQL over it, served by the indexes the projections declare (createIndex): the fields of an
 * index are expressions on the JSON (`json_extract(body, '$.account_id')`), so a list query whose
 * equality fields and sort match an index reads just its page — `WHERE … ORDER BY … LIMIT` —
 * however large the collection. Memory holds only SQLite's page cache and the statements, not the
 * documents.
 *
 *   "rs:<collection>" (id TEXT PRIMARY KEY, position INTEGER, body TEXT)   the live documents
 *   "rs-deleted:<collection>" (id, position)       tombstones, apart: indexes and counts hold live documents only
 *   checkpoints (name, position)
 *   read_store_indexes (collection, keys)          the declared indexes, rebuilt after a drop
 *   read_store_array_fields (collection, field)    declared fields seen holding an array
 *
 * Writes go into one open transaction that is committed every FLUSH_DELAY_MS together with the
 * checkpoints stored meanwhile, so the file always holds a state at or ahead of its checkpoints
 * (replays from there are harmless: writes are position-guarded), and this process's queries see
 * its writes at once (one connection: its reads see its own open transaction). What a crash loses
 * is that last stretch of projection work, which the restart replays from the log: read models are
 * derived, the event log is what must be durable. Pass no file for a store that lives in memory only
 * (tests, rebuild scratch space).
 *
 * One process writes the file (the one running the projectors). Another process on the same file
 * (a separate webhook dispatcher, the rebuild CLI's comparison) reads what is committed; every
 * 100 ms it reads the checkpoints from the file, so waitForCheckpoints follows the writer within
 * about FLUSH_DELAY_MS + 100 ms. Writing from two processes is not supported: run that topology on
 * MongoDB.
 */

/** How long writes and checkpoints stay in the open transaction before it is committed. */
const FLUSH_DELAY_MS = 50;

/** How often the file is checked for checkpoints moved by another process. */
const FOLLOW_INTERVAL_MS = 100;

/** SQLite's page cache of the read-models file (KiB): the hot part of the indexes and documents. */
const CACHE_KIB = 32 * 1024;

/** Prepared statements kept per store (queries differ by filter shape; the rest are few). */
const MAX_STATEMENTS = 500;

const META = `
CREATE TABLE IF NOT EXISTS checkpoints (
  name     TEXT PRIMARY KEY,
  position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS read_store_indexes (
  collection TEXT NOT NULL,
  keys       TEXT NOT NULL,
  PRIMARY KEY (collection, keys)
);
CREATE TABLE IF NOT EXISTS read_store_array_fields (
  collection TEXT NOT NULL,
  field      TEXT NOT NULL,
  PRIMARY KEY (collection, field)
);
`;

const quoted = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const tableOf = (collection: string): string => quoted(`rs:${collection}`);
/** The deleted documents' ids and positions (tombstones), apart so that indexes and counts hold live documents only. */
const tombstonesOf = (collection: string): string => quoted(`rs-deleted:${collection}`);

type IndexEntries = [string, 1 | -1][];
type NamedIndex = IndexEntries & { name: string };
const entriesOf = (keys: string | IndexKeys): IndexEntries => (typeof keys === 'string' ? [[keys, 1]] : (Object.entries(keys) as IndexEntries));

type Row = { id: string; body: string };

/** Queries whose chosen index SQLite could not use (see SqlCollection.prepared), run without it. */
const unservedByIndex = new Set<string>();

/** Everything the collections of one store share: the connection, its transaction, what is declared. */
type Engine = {
  statement: (sql: string) => BetterSqlite3.Statement;
  /** Opens the write transaction if none is open (committed within FLUSH_DELAY_MS). */
  beginWrite: () => void;
  /** Creates the collection's table and its declared indexes if they are missing. */
  ensureTable: (collection: string) => void;
  declare: (collection: string, entries: IndexEntries) => void;
  kinds: (collection: string) => FieldKinds;
  /** The collection's declared indexes (their entries), each with the name it has in the file. */
  indexesOf: (collection: string) => readonly NamedIndex[];
  /** Records the declared fields of `doc` that hold an array (they are then queried element-wise). */
  noteArrays: (collection: string, doc: Doc) => void;
  /** Counts already made, kept right through this store's writes (count-cache.ts). */
  counts: ReturnType<typeof countCache>;
};

/** Up to this many random draws are read at random offsets (see sample). */
const FEW_DRAWS = 4;

/** SQLite's order of values (NULL, numbers, text, blobs), for merging rows SQLite sorted. */
const compareSqlValues = (a: unknown, b: unknown): number => {
  const rank = (value: unknown) => (value === null || value === undefined ? 0 : typeof value === 'number' || typeof value === 'bigint' ? 1 : typeof value === 'string' ? 2 : 3);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra === 0) return 0;
  if (ra === 2) return Buffer.compare(Buffer.from(a as string), Buffer.from(b as string));
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
};

/**
 * The filter as one filter per branch of its first $or (found at the top or among the members of
 * its top-level $and), each with the rest of the conjunction; null when it has none.
 */
const orBranches = (filter: Filter | undefined): Filter[] | null => {
  if (!filter) return null;
  const members: Filter[] = [];
  const flatten = (part: Filter) => {
    for (const [key, value] of Object.entries(part)) {
      if (key === '$and') for (const sub of value as Filter[]) flatten(sub);
      else members.push({ [key]: value });
    }
  };
  flatten(filter);
  const at = members.findIndex((member) => '$or' in member);
  if (at < 0) return null;
  const rest = members.filter((_, i) => i !== at);
  return (members[at].$or as Filter[]).map((branch) => ({ $and: [...rest, branch] }));
};

class SqlCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;
  private readonly tombstones: string;

  constructor(
    private readonly engine: Engine,
    private readonly name: string,
  ) {
    this.table = tableOf(name);
    this.tombstones = tombstonesOf(name);
  }

  private ready(): void {
    this.engine.ensureTable(this.name);
  }

  /**
   * The SQL of a query on live documents, and whether it matches exactly what filter.ts matches.
   * `from` names the table with the index chosen by MongoDB's rule (index-match.ts), so the query
   * is served by the same index whatever SQLite knows of the data (it keeps no statistics here).
   */
  private where(filter: Filter | undefined, order: { sort?: SortSpec; paged?: boolean } = {}): { sql: string; params: unknown[]; exact: boolean; from: string } {
    const kinds = this.engine.kinds(this.name);
    const condition = toSqlCondition(filter, kinds);
    const chosen = chooseIndex(this.engine.indexesOf(this.name), filter, { ...order, usable: (field) => kinds.isScalar(field) });
    return {
      sql: condition.sql || '1',
      params: condition.params,
      exact: condition.exact,
      from: chosen ? `${this.table} INDEXED BY ${quoted(chosen.name)}` : this.table,
    };
  }

  /** A prepared query; one its index cannot serve (SQLite: "no query solution") runs as SQLite plans it. */
  private prepared(sql: string): BetterSqlite3.Statement {
    if (!unservedByIndex.has(sql)) {
      try {
        return this.engine.statement(sql);
      } catch (error) {
        if (!/no query solution/.test(String(error))) throw error;
        unservedByIndex.add(sql);
      }
    }
    return this.engine.statement(sql.replace(/ INDEXED BY "(?:[^"]|"")*"/, ''));
  }

  /** The find's SQL: LIMIT/OFFSET in SQL when the condition is exact, else rows to re-check in order. */
  private findSql(filter: Filter | undefined, options: FindOptions) {
    const where = this.where(filter, { sort: options.sort, paged: options.limit !== undefined });
    const order = toSqlOrder(options.sort);
    let sql = `SELECT id, body FROM ${where.from} WHERE ${where.sql}${order ? ` ORDER BY ${order}` : ''}`;
    const params = [...where.params];
    if (where.exact && (options.limit !== undefined || options.skip)) {
      sql += ' LIMIT ? OFFSET ?';
      params.push(options.limit ?? -1, options.skip ?? 0);
    }
    return { sql, params, exact: where.exact };
  }

  /**
   * A sorted page of a filter with an $or (public images or the caller's own): SQLite would read
   * both sides by their indexes and sort all they match; instead each side is read in its own
   * index's order up to skip + limit rows, and the sides are merged by the sort keys SQLite
   * returned (so the order is SQLite's own), dropping repeats. Null when the filter has no $or, or
   * a side is not exactly expressible in SQL.
   */
  private branchQueries(filter: Filter | undefined, options: FindOptions) {
    const sort = options.sort ?? {};
    if (Object.keys(sort).length === 0 || options.limit === undefined) return null;
    const branches = orBranches(filter);
    if (!branches) return null;
    const wheres = branches.map((branch) => this.where(branch, { sort, paged: true }));
    if (!wheres.every((where) => where.exact)) return null;
    const keys = Object.keys(sort).map((field, i) => `${valueOf(field)} AS k${i}`).join(', ');
    const order = toSqlOrder(sort);
    return wheres.map((where) => ({
      sql: `SELECT id, body, ${keys} FROM ${where.from} WHERE ${where.sql} ORDER BY ${order} LIMIT ?`,
      params: [...where.params, (options.skip ?? 0) + (options.limit ?? 0)],
    }));
  }

  private findMerged(queries: { sql: string; params: unknown[] }[], options: FindOptions): T[] {
    const directions = Object.values(options.sort ?? {});
    const rows = new Map<string, Record<string, unknown>>();
    for (const query of queries) for (const row of this.prepared(query.sql).all(...query.params) as Record<string, unknown>[]) rows.set(row.id as string, row);
    const merged = [...rows.values()].sort((a, b) => {
      for (let i = 0; i < directions.length; i++) {
        const result = compareSqlValues(a[`k${i}`], b[`k${i}`]);
        if (result !== 0) return result * directions[i];
      }
      return 0;
    });
    const skip = options.skip ?? 0;
    return merged.slice(skip, skip + (options.limit ?? merged.length)).map((row) => JSON.parse(row.body as string) as T);
  }

  async get(id: string): Promise<T | null> {
    this.ready();
    const row = this.engine.statement(`SELECT body FROM ${this.table} WHERE id = ?`).get(id) as { body: string | null } | undefined;
    return row?.body ? (JSON.parse(row.body) as T) : null;
  }

  async getMany(ids: readonly string[]): Promise<Map<string, T>> {
    this.ready();
    const found = new Map<string, T>();
    if (ids.length === 0) return found;
    // One id (a vote's image, a delivery): a key lookup, without the JSON array and json_each.
    const rows =
      ids.length === 1
        ? (this.engine.statement(`SELECT id, body FROM ${this.table} WHERE id = ?`).all(ids[0]) as Row[])
        : (this.engine.statement(`SELECT id, body FROM ${this.table} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify([...new Set(ids)])) as Row[]);
    for (const row of rows) found.set(row.id, JSON.parse(row.body) as T);
    return found;
  }

  async getStored(ids: readonly string[]): Promise<Map<string, Stored<T>>> {
    this.ready();
    const found = new Map<string, Stored<T>>();
    if (ids.length === 0) return found;
    const asked = JSON.stringify([...new Set(ids)]);
    const rows = this.engine
      .statement(
        `SELECT id, position, body FROM ${this.table} WHERE id IN (SELECT value FROM json_each(?))
         UNION ALL SELECT id, position, NULL FROM ${this.tombstones} WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(asked, asked) as { id: string; position: bigint; body: string | null }[];
    for (const row of rows) {
      const position = BigInt(row.position);
      if (position > (found.get(row.id)?.position ?? -1n)) found.set(row.id, { doc: row.body === null ? null : (JSON.parse(row.body) as T), position });
    }
    return found;
  }

  async find(filter?: Filter, given: FindOptions = {}): Promise<T[]> {
    this.ready();
    // SQLite takes LIMIT and OFFSET as 64-bit integers: a page far past any collection (page=2^61)
    // is clamped to the largest safe integer, which reads nothing, instead of a datatype mismatch.
    const safe = (n: number | undefined) => (n === undefined ? undefined : Math.min(n, Number.MAX_SAFE_INTEGER));
    const options: FindOptions = { ...given, skip: safe(given.skip), limit: safe(given.limit) };
    const branches = this.branchQueries(filter, options);
    if (branches) return this.findMerged(branches, options);
    const { sql, params, exact } = this.findSql(filter, options);
    const statement = this.prepared(sql);
    if (exact) return (statement.all(...params) as Row[]).map((row) => JSON.parse(row.body) as T);
    // Part of the filter is not in the SQL: re-check each row, in order, until the page is full.
    const skip = options.skip ?? 0;
    const found: T[] = [];
    let skipped = 0;
    for (const row of statement.iterate(...params) as Iterable<Row>) {
      const doc = JSON.parse(row.body) as T;
      if (!matches(doc, filter)) continue;
      if (skipped < skip) {
        skipped += 1;
        continue;
      }
      found.push(doc);
      if (options.limit !== undefined && found.length >= options.limit) break;
    }
    return found;
  }

  async count(filter?: Filter): Promise<number> {
    this.ready();
    const where = this.where(filter);
    if (where.exact) {
      const sql = `SELECT count(*) AS n FROM ${where.from} WHERE ${where.sql}`;
      const key = `${sql}\u0000${JSON.stringify(where.params, (_, value) => (typeof value === 'bigint' ? `${value}n` : value))}`;
      const known = this.engine.counts.get(this.name, key);
      if (known !== undefined) return known;
      const n = Number((this.prepared(sql).get(...where.params) as { n: bigint | number }).n);
      this.engine.counts.set(this.name, key, filter, n);
      return n;
    }
    let n = 0;
    for (const row of this.prepared(`SELECT body FROM ${where.from} WHERE ${where.sql}`).iterate(...where.params) as Iterable<Row>) {
      if (matches(JSON.parse(row.body), filter)) n += 1;
    }
    return n;
  }

  async latestPer(filter: Filter, group: string, by: string): Promise<T[]> {
    this.ready();
    const where = this.where(filter);
    if (!where.exact) {
      const newest = new Map<unknown, T>();
      for (const doc of await this.find(filter)) {
        const key = getPath(doc, group);
        const known = newest.get(key);
        if (!known || (getPath(doc, by) as number) > (getPath(known, by) as number)) newest.set(key, doc);
      }
      return [...newest.values()];
    }
    // SQLite takes the other columns of a max() aggregate from the row that holds the maximum. Only
    // the id is taken: the index holds it (and the grouped and compared fields), so the groups are
    // read from the index alone and only the newest document of each is read from the table — on
    // grown data those are scattered, one page each (ten images with ten votes each: 10 pages, not 100).
    const sql = `SELECT id, max(${valueOf(by)}) AS latest FROM ${where.from} WHERE ${where.sql} GROUP BY ${valueOf(group)}`;
    const ids = (this.prepared(sql).all(...where.params) as { id: string }[]).map((row) => row.id);
    return [...(await this.getMany(ids)).values()];
  }

  /**
   * Draws among the matching ids. A few draws (the default image search draws one) are read at
   * random offsets of the matches in index order, counted first (the count is usually the one the
   * list just made): each reads index entries only, never documents. More draws read every matching
   * id once and shuffle.
   */
  async sample(filter: Filter, size: number): Promise<T[]> {
    this.ready();
    const where = this.where(filter);
    let chosen: string[] = [];
    if (where.exact && size <= FEW_DRAWS) {
      const total = await this.count(filter);
      const offsets = new Set<number>();
      while (offsets.size < Math.min(size, total)) offsets.add(Math.floor(Math.random() * total));
      const at = this.prepared(`SELECT id FROM ${where.from} WHERE ${where.sql} LIMIT 1 OFFSET ?`);
      chosen = [...offsets].map((offset) => (at.get(...where.params, offset) as { id: string } | undefined)?.id).filter((id): id is string => id !== undefined);
    } else {
      const ids: string[] = [];
      if (where.exact) {
        for (const row of this.prepared(`SELECT id FROM ${where.from} WHERE ${where.sql}`).iterate(...where.params) as Iterable<{ id: string }>) ids.push(row.id);
      } else {
        for (const row of this.prepared(`SELECT id, body FROM ${where.from} WHERE ${where.sql}`).iterate(...where.params) as Iterable<Row>) {
          if (matches(JSON.parse(row.body), filter)) ids.push(row.id);
        }
      }
      for (let i = 0; i < size && i < ids.length; i++) {
        const j = i + Math.floor(Math.random() * (ids.length - i));
        [ids[i], ids[j]] = [ids[j], ids[i]];
        chosen.push(ids[i]);
      }
    }
    const docs = await this.getMany(chosen);
    return chosen.map((id) => docs.get(id)).filter((doc): doc is T => doc !== undefined);
  }

  /** The document's upsert unless it, or its tombstone, already saw `position`. */
  /** The live document, parsed (for the counts kept: see count-cache.ts). */
  private live(id: string): Doc | null {
    const row = this.engine.statement(`SELECT body FROM ${this.table} WHERE id = ?`).get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as Doc) : null;
  }

  private write(doc: Doc, position: bigint): boolean {
    this.engine.noteArrays(this.name, doc);
    const deleted = this.engine.statement(`SELECT position FROM ${this.tombstones} WHERE id = ?`).get(doc._id) as { position: bigint } | undefined;
    if (deleted) {
      if (BigInt(deleted.position) >= position) return false;
      this.engine.statement(`DELETE FROM ${this.tombstones} WHERE id = ?`).run(doc._id);
    }
    const counted = this.engine.counts.tracking(this.name);
    const before = counted ? this.live(doc._id) : null;
    const applied =
      this.engine
        .statement(
          `INSERT INTO ${this.table} (id, position, body) VALUES (?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET position = excluded.position, body = excluded.body WHERE excluded.position > ${this.table}.position`,
        )
        .run(doc._id, position, JSON.stringify(doc)).changes > 0;
    if (applied && counted) this.engine.counts.moved(this.name, before, doc);
    return applied;
  }

  /** Replaces the document by its tombstone unless either saw `position`; true if a live document went. */
  private remove(id: string, position: bigint): boolean {
    const live = this.engine.statement(`SELECT position, body FROM ${this.table} WHERE id = ?`).get(id) as { position: bigint; body: string } | undefined;
    if (live && BigInt(live.position) >= position) return false;
    if (live) {
      this.engine.statement(`DELETE FROM ${this.table} WHERE id = ?`).run(id);
      if (this.engine.counts.tracking(this.name)) this.engine.counts.moved(this.name, JSON.parse(live.body) as Doc, null);
    }
    this.engine
      .statement(
        `INSERT INTO ${this.tombstones} (id, position) VALUES (?, ?)
         ON CONFLICT (id) DO UPDATE SET position = excluded.position WHERE excluded.position > ${this.tombstones}.position`,
      )
      .run(id, position);
    return live !== undefined;
  }

  async upsert(doc: T, position: bigint): Promise<boolean> {
    this.ready();
    this.engine.beginWrite();
    return this.write(doc, position);
  }

  async delete(id: string, position: bigint): Promise<boolean> {
    this.ready();
    this.engine.beginWrite();
    return this.remove(id, position);
  }

  /** In the open transaction, one after the other (each with its guard). */
  async bulkWrite(ops: readonly WriteOp<T>[]): Promise<void> {
    if (ops.length === 0) return;
    this.ready();
    this.engine.beginWrite();
    for (const op of ops) {
      if (op.type === 'upsert') this.write(op.doc, op.position);
      else this.remove(op.id, op.position);
    }
  }

  async createIndex(keys: string | IndexKeys): Promise<void> {
    this.ready();
    this.engine.declare(this.name, entriesOf(keys));
  }

  async explain(filter?: Filter, options: FindOptions = {}): Promise<QueryPlan> {
    this.ready();
    const queries = this.branchQueries(filter, options) ?? [this.findSql(filter, options)];
    const lines = queries.flatMap(({ sql, params }, i) => [
      ...(queries.length > 1 ? [`BRANCH ${i + 1} OF ${queries.length}`] : []),
      ...(this.prepared(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail),
    ]);
    const table = `rs:${this.name}`;
    const ownScans = lines.filter((line) => line === `SCAN ${table}` || line.startsWith(`SCAN ${table} `));
    const narrowing = fieldsOf(filter).length > 0;
    // Equalities of the filter that the index's matched prefix leaves to be checked on each entry.
    const kinds = this.engine.kinds(this.name);
    const equalities = equalityFields(filter).filter((field) => kinds.isScalar(field)).length;
    const ownSearches = lines.filter((line) => line.startsWith(`SEARCH ${table} `));
    return {
      // A scan of the table, or a walk along a whole index while the filter narrows nothing it knows.
      scans: ownScans.some((line) => !line.includes(' USING ') || narrowing),
      partialPrefix: ownSearches.some((line) => (line.match(/=\?/g) ?? []).length < equalities),
      sortsInMemory: lines.some((line) => line.includes('USE TEMP B-TREE')),
      detail: lines.join('\n'),
    };
  }
}

/**
 * `maxResidentDocs` (READ_STORE_RESIDENT_DOCS) is accepted and has no effect: no documents are held
 * in memory any more; it stays so that existing configurations start.
 */
export const embeddedReadStore = (file?: string, options: { followIntervalMs?: number; maxResidentDocs?: number } = {}): ReadStore => {
  const persisted = file !== undefined;
  const db: BetterSqlite3.Database = persisted ? openSqlite(file) : new Database(':memory:');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.exec(META);
  db.defaultSafeIntegers(true);
  db.function('rs_regex', { deterministic: true, safeIntegers: false }, (pattern: unknown, flags: unknown, value: unknown) =>
    typeof value === 'string' && toRegex(String(pattern), String(flags)).test(value) ? 1 : 0,
  );

  const statements = new Map<string, BetterSqlite3.Statement>();
  const statement = (sql: string): BetterSqlite3.Statement => {
    let prepared = statements.get(sql);
    if (!prepared) {
      if (statements.size >= MAX_STATEMENTS) statements.clear();
      prepared = db.prepare(sql);
      statements.set(sql, prepared);
    }
    return prepared;
  };

  /** Per collection: its declared indexes (by their keys' JSON), their fields, and those seen holding arrays. */
  const indexes = new Map<string, Map<string, IndexEntries>>();
  /** The same with their names, kept per collection until an index is declared (every query chooses among them). */
  const named = new Map<string, readonly NamedIndex[]>();
  const declaredFields = new Map<string, Set<string>>();
  const arrayFields = new Map<string, Set<string>>();
  const addTo = <V>(map: Map<string, Set<V>>, key: string, value: V) => {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(value);
  };
  const remember = (collection: string, keys: string) => {
    const entries = JSON.parse(keys) as IndexEntries;
    let own = indexes.get(collection);
    if (!own) indexes.set(collection, (own = new Map()));
    own.set(keys, entries);
    named.delete(collection);
    for (const [field] of entries) if (field !== '_id') addTo(declaredFields, collection, field);
  };
  const readArrayFields = () => {
    arrayFields.clear();
    for (const row of db.prepare('SELECT collection, field FROM read_store_array_fields').all() as { collection: string; field: string }[]) {
      addTo(arrayFields, row.collection, row.field);
    }
  };
  for (const row of db.prepare('SELECT collection, keys FROM read_store_indexes').all() as { collection: string; keys: string }[]) remember(row.collection, row.keys);
  readArrayFields();

  // The write transaction (see above). A store in memory only writes each statement at once.
  let flushTimer: NodeJS.Timeout | null = null;
  let failedFlushes = 0;
  /**
   * A COMMIT that SQLite refused and rolled back (the disk full, most often), or a statement whose
   * failure took the whole transaction with it, lost the writes and checkpoints since the last
   * commit, which their writers took as done: counted in `rollbacks`, and the checkpoints this
   * process holds go back to what the file holds, so the projection runner applies the events since
   * again (it watches the count).
   */
  let rollbacks = 0;
  /** Whether this store opened the write transaction and has not committed it yet. */
  let open = false;
  /**
   * Whether SQLite rolled the open transaction back on its own: a COMMIT refused, or a statement
   * failing with SQLITE_FULL or an I/O error, which may take the whole transaction with it.
   */
  const noticeRollback = (error?: unknown): boolean => {
    if (!open || !db.open || db.inTransaction) return false;
    open = false;
    // The error made only now: an Error captures a stack, and this runs on every write and checkpoint read.
    rolledBack(error ?? new Error('the write transaction was rolled back by SQLite'));
    return true;
  };
  const commit = () => {
    flushTimer = null;
    if (!db.open || !db.inTransaction) {
      noticeRollback();
      return;
    }
    try {
      db.exec('COMMIT');
      open = false;
      failedFlushes = 0;
    } catch (error) {
      failedFlushes += 1;
      if (failedFlushes === 1) process.emitWarning(`read-models file write failed, retrying: ${String(error)}`);
      if (noticeRollback(error)) return;
      flushTimer = setTimeout(commit, Math.min(5_000, FLUSH_DELAY_MS * 2 ** Math.min(failedFlushes, 7)));
    }
  };
  const beginWrite = () => {
    noticeRollback();
    if (!persisted || db.inTransaction) return;
    db.exec('BEGIN IMMEDIATE');
    open = true;
    flushTimer ??= setTimeout(commit, FLUSH_DELAY_MS);
  };

  const ready = new Set<string>();
  const indexName = (collection: string, entries: IndexEntries): string =>
    `rs:${collection}:${entries.map(([field, direction]) => `${field}${direction < 0 ? '-' : ''}`).join(',')}`;
  const indexSql = (collection: string, entries: IndexEntries): string => {
    const columns = entries.map(([field, direction]) => `${valueOf(field)}${direction < 0 ? ' DESC' : ''}`).join(', ');
    return `CREATE INDEX IF NOT EXISTS ${quoted(indexName(collection, entries))} ON ${tableOf(collection)} (${columns})`;
  };
  const inSchema = (type: 'table' | 'index', name: string): boolean =>
    Boolean(statement('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?').get(type, name));
  /** Writes nothing when all is there (a reading process must not take the write lock for nothing). */
  const ensureTable = (collection: string) => {
    if (ready.has(collection)) return;
    const missing = [...(indexes.get(collection)?.values() ?? [])].filter((entries) => !inSchema('index', indexName(collection, entries)));
    if (!inSchema('table', `rs:${collection}`) || !inSchema('table', `rs-deleted:${collection}`) || missing.length > 0) {
      beginWrite();
      db.exec(`CREATE TABLE IF NOT EXISTS ${tableOf(collection)} (id TEXT PRIMARY KEY, position INTEGER NOT NULL, body TEXT NOT NULL)`);
      db.exec(`CREATE TABLE IF NOT EXISTS ${tombstonesOf(collection)} (id TEXT PRIMARY KEY, position INTEGER NOT NULL) WITHOUT ROWID`);
      for (const entries of missing) db.exec(indexSql(collection, entries));
    }
    ready.add(collection);
  };

  const declare = (collection: string, entries: IndexEntries) => {
    const keys = JSON.stringify(entries);
    if (indexes.get(collection)?.has(keys)) return;
    // Declared by another process on this file (the writer): nothing to write.
    if (statement('SELECT 1 FROM read_store_indexes WHERE collection = ? AND keys = ?').get(collection, keys) && inSchema('index', indexName(collection, entries))) {
      remember(collection, keys);
      readArrayFields();
      return;
    }
    beginWrite();
    // Fields newly declared: whether the documents already stored hold arrays there (once, at declaration).
    for (const [field] of entries) {
      if (field === '_id' || declaredFields.get(collection)?.has(field) || arrayFields.get(collection)?.has(field)) continue;
      if (db.prepare(`SELECT 1 FROM ${tableOf(collection)} WHERE json_type(body, ${jsonPath(field)}) = 'array' LIMIT 1`).get()) {
        db.prepare('INSERT OR IGNORE INTO read_store_array_fields (collection, field) VALUES (?, ?)').run(collection, field);
        addTo(arrayFields, collection, field);
      }
    }
    db.exec(indexSql(collection, entries));
    db.prepare('INSERT OR IGNORE INTO read_store_indexes (collection, keys) VALUES (?, ?)').run(collection, keys);
    remember(collection, keys);
  };

  const kinds = (collection: string): FieldKinds => {
    const declared = declaredFields.get(collection);
    const arrays = arrayFields.get(collection);
    return { isScalar: (field) => field === '_id' || (declared?.has(field) === true && arrays?.has(field) !== true) };
  };

  const noteArrays = (collection: string, doc: Doc) => {
    const declared = declaredFields.get(collection);
    if (!declared) return;
    for (const field of declared) {
      if (!Array.isArray(getPath(doc, field)) || arrayFields.get(collection)?.has(field)) continue;
      statement('INSERT OR IGNORE INTO read_store_array_fields (collection, field) VALUES (?, ?)').run(collection, field);
      addTo(arrayFields, collection, field);
    }
  };

  const counts = countCache();
  /** After a rolled-back commit: what this process holds in memory goes back to what the file holds. */
  const rolledBack = (error: unknown) => {
    rollbacks += 1;
    process.emitWarning(`read-models writes since the last commit were rolled back (${String(error)}); projections apply the events since again`);
    counts.clear();
    ready.clear();
    readArrayFields();
    checkpoints.clear();
    for (const row of db.prepare('SELECT name, position FROM checkpoints').all() as { name: string; position: bigint }[]) {
      checkpoints.set(row.name, BigInt(row.position));
    }
  };
  const indexesOf = (collection: string): readonly NamedIndex[] => {
    let list = named.get(collection);
    if (!list) {
      list = [...(indexes.get(collection)?.values() ?? [])].map((entries) => Object.assign([...entries], { name: indexName(collection, entries) }));
      named.set(collection, list);
    }
    return list;
  };
  const engine: Engine = { statement, beginWrite, ensureTable, declare, kinds, indexesOf, noteArrays, counts };

  // A file written by the earlier embedded store (one `documents` table, no indexes): moved over once.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'documents'").get()) {
    db.transaction(() => {
      for (const name of db.prepare('SELECT DISTINCT collection FROM documents').pluck().all() as string[]) {
        ensureTable(name);
        db.prepare(`INSERT OR REPLACE INTO ${tableOf(name)} (id, position, body) SELECT id, position, body FROM documents WHERE collection = ? AND body IS NOT NULL`).run(name);
        db.prepare(`INSERT OR REPLACE INTO ${tombstonesOf(name)} (id, position) SELECT id, position FROM documents WHERE collection = ? AND body IS NULL`).run(name);
      }
      db.exec('DROP TABLE documents');
    })();
  }

  const collections = new Map<string, SqlCollection<Doc>>();
  const collection = <T extends Doc>(name: string): Collection<T> => {
    let existing = collections.get(name);
    if (!existing) collections.set(name, (existing = new SqlCollection<Doc>(engine, name)));
    return existing as Collection<T>;
  };

  const checkpoints = new Map<string, bigint>();
  for (const row of db.prepare('SELECT name, position FROM checkpoints').all() as { name: string; position: bigint }[]) {
    checkpoints.set(row.name, BigInt(row.position));
  }
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
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
  const reached = (names: readonly string[], position: bigint) => names.every((name) => (checkpoints.get(name) ?? 0n) >= position);

  // Following another process's writes: its checkpoints are committed with the documents they cover.
  const follow = () => {
    if (!db.open) return;
    const moved = (statement('SELECT name, position FROM checkpoints').all() as { name: string; position: bigint }[]).filter(
      (row) => BigInt(row.position) > (checkpoints.get(row.name) ?? -1n),
    );
    if (moved.length === 0) return;
    readArrayFields();
    counts.clear();
    for (const row of moved) checkpoints.set(row.name, BigInt(row.position));
    changes.emit('checkpoint');
  };
  const follower = persisted ? setInterval(follow, options.followIntervalMs ?? FOLLOW_INTERVAL_MS) : null;
  follower?.unref();

  return {
    collection,
    get rollbacks() {
      noticeRollback();
      return rollbacks;
    },
    async getCheckpoint(name) {
      noticeRollback();
      return checkpoints.get(name) ?? null;
    },
    setCheckpoint(name, position) {
      noticeRollback();
      checkpoints.set(name, position);
      announceCheckpoints();
      beginWrite();
      statement('INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position').run(name, position);
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
      beginWrite();
      for (const name of names) {
        db.exec(`DROP TABLE IF EXISTS ${tableOf(name)}`);
        db.exec(`DROP TABLE IF EXISTS ${tombstonesOf(name)}`);
        db.prepare('DELETE FROM read_store_array_fields WHERE collection = ?').run(name);
        arrayFields.delete(name);
        ready.delete(name);
        counts.forget(name);
      }
      statements.clear();
      for (const name of checkpointNames) {
        checkpoints.delete(name);
        db.prepare('DELETE FROM checkpoints WHERE name = ?').run(name);
      }
    },
    async close() {
      if (follower) clearInterval(follower);
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      if (db.open) {
        if (db.inTransaction) db.exec('COMMIT');
        db.close();
      }
    },
  };
};

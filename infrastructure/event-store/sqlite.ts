import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { openSqlite, type SqliteDatabase } from '../sqlite.ts';
import { catchUpSlices } from '../catch-up.ts';
import {
  WrongExpectedRevisionError,
  matchesFilter,
  streamCategory,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';
import type { LogTail, TailEntry } from './tail.ts';
import { envelopeOfStored } from '../bus/envelope.ts';

type Row = {
  position: number | bigint;
  event_id: string;
  stream: string;
  revision: number | bigint;
  type: string;
  data: string;
  metadata: string;
  /** The metadata's timestamp. */
  created_at: string;
};

/**
 * SQLite integers are 64-bit: a revision or position past that (a client's `from_revision` of 20
 * digits) would fail the bind; no event has one, so it reads as the largest there can be.
 */
const MAX_INT64 = 9_223_372_036_854_775_807n;
const inInt64 = (value: bigint): bigint => (value > MAX_INT64 ? MAX_INT64 : value);

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.event_id,
  streamName: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  type: row.type,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
});

/** A row as a tail entry: the bus envelope (from the stored JSON text) and the event are made once, when asked for. */
class RowEntry implements TailEntry {
  readonly #row: Row;
  #envelope: string | undefined;
  #event: RecordedEvent | undefined;
  #category: string | undefined;
  constructor(row: Row) {
    this.#row = row;
  }
  get position(): bigint {
    return BigInt(this.#row.position);
  }
  get streamName(): string {
    return this.#row.stream;
  }
  get category(): string {
    return (this.#category ??= streamCategory(this.#row.stream));
  }
  get timestamp(): string {
    return this.#row.created_at;
  }
  get event(): RecordedEvent {
    return (this.#event ??= toRecorded(this.#row));
  }
  get envelope(): string {
    return (this.#envelope ??= envelopeOfStored({
      id: this.#row.event_id,
      type: this.#row.type,
      streamName: this.#row.stream,
      revision: BigInt(this.#row.revision),
      position: BigInt(this.#row.position),
      data: this.#row.data,
      metadata: this.#row.metadata,
    }));
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id   TEXT NOT NULL UNIQUE,
  stream     TEXT NOT NULL,
  revision   INTEGER NOT NULL,
  type       TEXT NOT NULL,
  data       TEXT NOT NULL,
  metadata   TEXT NOT NULL,
  account_id TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (stream, revision)
);
CREATE INDEX IF NOT EXISTS events_by_account ON events (account_id, position);
`;

export type SqliteEventStoreOptions = {
  /** How often a subscription looks for events appended by other processes. */
  pollIntervalMs?: number;
};

/**
 * The embedded event store: one SQLite file (WAL). Global position = rowid, revision unique per
 * stream, expectations checked inside an IMMEDIATE transaction so concurrent appenders, in this
 * process or another, get exactly one winner per revision.
 */
/** The embedded store also offers its log to readers that keep their own positions (the embedded bus). */
export type SqliteEventStore = EventStore & { tail: LogTail };

export const sqliteEventStore = (file: string, options: SqliteEventStoreOptions = {}): SqliteEventStore => {
  const db: SqliteDatabase = openSqlite(file);
  db.exec(SCHEMA);
  db.defaultSafeIntegers(true);
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);
  let closed = false;
  const subscriptions = new Set<Subscription>();

  const stmt = {
    streamHead: db.prepare<[string], { revision: bigint | null }>('SELECT max(revision) AS revision FROM events WHERE stream = ?'),
    byEventId: db.prepare<[string], Row>('SELECT * FROM events WHERE event_id = ?'),
    insert: db.prepare(
      'INSERT INTO events (event_id, stream, revision, type, data, metadata, account_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    readForwards: db.prepare<[string, bigint, number], Row>(
      'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision ASC LIMIT ?',
    ),
    readBackwards: db.prepare<[string, bigint, number], Row>(
      'SELECT * FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?',
    ),
    // Every stream starts at revision 0, so (stream, 0) names it in the unique index.
    existing: db.prepare<[string], { stream: string }>("SELECT stream FROM events WHERE revision = 0 AND stream IN (SELECT value FROM json_each(?))"),
    allForwards: db.prepare<[bigint, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position ASC LIMIT ?'),
    allBackwards: db.prepare<[bigint, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position DESC LIMIT ?'),
    head: db.prepare<[], { position: bigint | null }>('SELECT max(position) AS position FROM events'),
    firstSince: db.prepare<[string], { position: bigint | null }>('SELECT min(position) AS position FROM events WHERE created_at >= ?'),
  };

  /**
   * The rows after a position, shared by every reader that asks for the same ones in the same turn
   * of the event loop: an append wakes the projections' subscription and each bus consumer group,
   * and they all read the same new rows, so one query serves them all. Forgotten at the next turn
   * and at every commit (before the readers are woken), so nobody is served rows older than the
   * append that woke them.
   */
  let shared = new Map<string, Row[]>();
  const sharedEntries = new WeakMap<Row[], TailEntry[]>();
  let forgetScheduled = false;
  const forgetShared = () => {
    forgetScheduled = false;
    if (shared.size > 0) shared = new Map();
  };
  /**
   * The highest position this process knows the log has: its own commits and every row read. A
   * reader that has handled up to it waits for the next append signal (or its poll, for appends by
   * other processes) instead of asking SQLite once more for rows that cannot be there yet.
   */
  let knownHead = 0n;
  const rowsAfter = (after: bigint, limit: number): Row[] => {
    const key = `${after}:${limit}`;
    let rows = shared.get(key);
    if (!rows) {
      rows = stmt.allForwards.all(after, limit);
      if (rows.length > 0) {
        const last = BigInt(rows[rows.length - 1].position);
        if (last > knownHead) knownHead = last;
      }
      shared.set(key, rows);
      if (!forgetScheduled) {
        forgetScheduled = true;
        setImmediate(forgetShared);
      }
    }
    return rows;
  };
  const entriesAfter = (after: bigint, limit: number): TailEntry[] => {
    const rows = rowsAfter(after, limit);
    let entries = sharedEntries.get(rows);
    if (!entries) {
      entries = rows.map((row) => new RowEntry(row));
      sharedEntries.set(rows, entries);
    }
    return entries;
  };

  const expectationHolds = (expected: ExpectedRevision, current: bigint | null): boolean => {
    if (expected === 'any') return true;
    if (expected === 'no_stream') return current === null;
    if (expected === 'stream_exists') return current !== null;
    return current === expected;
  };

  /** Same ids, same stream, same expectation as an earlier append: answer what it answered. */
  const earlierAppend = (streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult | null => {
    const first = stmt.byEventId.get(events[0].id);
    if (!first) return null;
    const rows = events.map((event) => stmt.byEventId.get(event.id));
    const firstRevision = BigInt(first.revision);
    const consistent = rows.every(
      (row, index) => row !== undefined && row.stream === streamName && BigInt(row.revision) === firstRevision + BigInt(index),
    );
    const before = firstRevision === 0n ? null : firstRevision - 1n;
    if (!consistent || !expectationHolds(expected, before)) {
      throw new WrongExpectedRevisionError(streamName, expected, before ?? 'no_stream');
    }
    const last = rows[rows.length - 1] as Row;
    return { nextRevision: BigInt(last.revision), position: BigInt(last.position) };
  };

  const appendInTransaction = (streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
    const repeated = earlierAppend(streamName, events, expected);
    if (repeated) return repeated;
    const head = stmt.streamHead.get(streamName)?.revision ?? null;
    const current = head === null ? null : BigInt(head);
    if (!expectationHolds(expected, current)) {
      throw new WrongExpectedRevisionError(streamName, expected, current ?? 'no_stream');
    }
    let revision = current === null ? -1n : current;
    let position = 0n;
    for (const event of events) {
      revision += 1n;
      const info = stmt.insert.run(
        event.id,
        streamName,
        revision,
        event.type,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
        event.metadata.account_id,
        event.metadata.timestamp,
      );
      position = BigInt(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  };

  const readAllSync = (after: bigint, maxCount: number): RecordedEvent[] => stmt.allForwards.all(after, maxCount).map(toRecorded);

  /**
   * Group commit: the appends asked for in the same turn of the event loop (concurrent requests)
   * share one IMMEDIATE transaction, each append of several events in its own savepoint (a nested
   * better-sqlite3 transaction), so one append's failure rolls back that append alone; an append of
   * one event (most of them) needs none and saves its cost (≈ 20 % of an append). Every
   * caller is answered once the shared transaction has committed, as before: an acknowledged
   * append is durable, and appends keep the order they were asked in. An `appendAll` is one item
   * of the batch: its appends in one savepoint, all or none.
   */
  type QueuedAppend = {
    appends: readonly StreamAppend[];
    resolve: (results: AppendResult[]) => void;
    reject: (error: unknown) => void;
  };
  type Outcome = { results: AppendResult[] } | { error: unknown };
  const appendOne = (append: StreamAppend): AppendResult => appendInTransaction(append.streamName, append.events, append.expectedRevision ?? 'any');
  const appendAllTx = db.transaction((appends: readonly StreamAppend[]): AppendResult[] => appends.map(appendOne));
  let queue: QueuedAppend[] = [];
  const appendBatchTx = db.transaction((batch: QueuedAppend[]): Outcome[] =>
    batch.map((item) => {
      try {
        // (One event needs no savepoint: its insert is the append's only write, and a failed
        // statement leaves nothing behind.)
        const [only] = item.appends;
        if (item.appends.length === 1 && only.events.length === 1) return { results: [appendOne(only)] };
        return { results: appendAllTx(item.appends) };
      } catch (error) {
        return { error };
      }
    }),
  );
  const commitQueue = () => {
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = appendBatchTx.immediate(batch);
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    let last: bigint | null = null;
    outcomes.forEach((outcome, index) => {
      if ('results' in outcome) {
        for (const result of outcome.results) if (last === null || result.position > last) last = result.position;
        batch[index].resolve(outcome.results);
      } else batch[index].reject(outcome.error);
    });
    if (last !== null) {
      if (last > knownHead) knownHead = last;
      forgetShared();
      appended.emit('appended', last);
    }
  };
  const enqueue = (appends: readonly StreamAppend[]): Promise<AppendResult[]> => {
    if (appends.some((append) => append.events.length === 0)) throw new Error('append needs at least one event');
    if (closed) throw new Error('the event store is closed');
    return new Promise<AppendResult[]>((resolve, reject) => {
      queue.push({ appends, resolve, reject });
      if (queue.length === 1) setImmediate(commitQueue);
    });
  };

  const subscribe = (options: SubscribeOptions): Subscription => {
    let position = options.after ?? 0n;
    let stopped = false;
    const batchSize = options.batchSize ?? 500;
    let wake: (() => void) | null = null;
    const onAppended = () => wake?.();
    appended.on('appended', onAppended);

    // Woken by an append in this process, or by the poll timer (appends by other processes).
    const waitForMore = (): Promise<void> =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });

    const loop = (async () => {
      let failures = 0;
      const slices = catchUpSlices();
      while (!stopped && !closed) {
        const rows = rowsAfter(position, batchSize);
        if (rows.length === 0) {
          await waitForMore();
          slices.waited();
          continue;
        }
        const lastPosition = BigInt(rows[rows.length - 1].position);
        try {
          // Filter on the row before parsing it: most subscriptions want one stream category.
          await options.onEvents(
            rows.filter((row) => matchesFilter({ streamName: row.stream, type: row.type }, options.filter)).map(toRecorded),
            lastPosition,
          );
          position = lastPosition;
          failures = 0;
          // The read reached the end of the log, and this process knows of nothing after it: nothing
          // to read until the next append here wakes this loop (or its poll finds one made elsewhere).
          if (rows.length < batchSize && position >= knownHead && !stopped && !closed) {
            await waitForMore();
            slices.waited();
          }
          // Behind (a backlog, a first start on a grown log): the next batch would follow in the same
          // turn of the event loop, batch after batch, holding off every request, timer and I/O —
          // the read store's flush and eviction among them — until the head. Time-sliced instead.
          else if (rows.length === batchSize) await slices.afterFullBatch();
        } catch (error) {
          options.onError?.(error);
          failures += 1;
          await delay(Math.min(5000, 50 * 2 ** Math.min(failures, 7)));
        }
      }
    })();

    const subscription: Subscription = {
      get position() {
        return position;
      },
      stop: async () => {
        stopped = true;
        appended.off('appended', onAppended);
        wake?.();
        await loop;
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  };

  const tail: LogTail = {
    async read(after, limit) {
      if (closed) throw new Error('the event store is closed');
      return entriesAfter(after, limit);
    },
    onAppended(listener) {
      appended.on('appended', listener);
      return () => void appended.off('appended', listener);
    },
    pollIntervalMs,
    knownHead: () => knownHead,
    async positionBefore(since) {
      const first = stmt.firstSince.get(since)?.position;
      if (first !== null && first !== undefined) return BigInt(first) - 1n;
      const head = stmt.head.get()?.position;
      return head === null || head === undefined ? 0n : BigInt(head);
    },
  };

  return {
    tail,
    async append(streamName, events, options = {}) {
      const [result] = await enqueue([{ streamName, events, expectedRevision: options.expectedRevision }]);
      return result;
    },
    async appendAll(appends) {
      if (appends.length === 0) return [];
      return enqueue(appends);
    },
    async readStream(streamName, options: ReadStreamOptions = {}) {
      const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
      const rows =
        options.direction === 'backwards'
          ? stmt.readBackwards.all(streamName, inInt64(options.fromRevision ?? BigInt(Number.MAX_SAFE_INTEGER)), maxCount)
          : stmt.readForwards.all(streamName, inInt64(options.fromRevision ?? 0n), maxCount);
      return rows.map(toRecorded);
    },
    async existingStreams(streamNames) {
      if (streamNames.length === 0) return new Set();
      return new Set(stmt.existing.all(JSON.stringify(streamNames)).map((row) => row.stream));
    },
    async readAll(options: ReadAllOptions = {}) {
      const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER;
      if (options.direction === 'backwards') {
        return stmt.allBackwards.all(inInt64(options.after ?? 0n), maxCount).map(toRecorded);
      }
      return readAllSync(inInt64(options.after ?? 0n), maxCount);
    },
    subscribe,
    async headPosition() {
      const head = stmt.head.get()?.position;
      return head === null || head === undefined ? 0n : BigInt(head);
    },
    async close() {
      if (closed) return;
      commitQueue();
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      commitQueue();
      closed = true;
      db.close();
    },
  };
};

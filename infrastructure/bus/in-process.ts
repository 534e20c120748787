import { EventEmitter } from 'node:events';
import { openSqlite } from '../sqlite.ts';
import { consumeHandler, type Bus, type ConsumeOptions, type Consumer, type IncomingMessage, type OutgoingMessage } from './port.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  topic      TEXT NOT NULL,
  key        TEXT NOT NULL,
  value      TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_topic ON messages (topic, seq);
CREATE TABLE IF NOT EXISTS group_offsets (
  grp TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
);
`;

type Row = { seq: number; topic: string; key: string; value: string };

/** What one fetched batch came to: the last seq committed (if any) and whether a handler failed. */
type Outcome = { handled: number | null; failed: boolean };

/** Rows fetched per turn: one at a time for `handle`, one batch for `handleBatch`. */
const FETCH_LIMIT = { single: 200, batch: 500 } as const;

const toMessage = (row: Row): IncomingMessage => ({ topic: row.topic, key: row.key, value: row.value, offset: String(row.seq) });

const backOffMs = (failures: number): number => Math.min(5000, 50 * 2 ** Math.min(failures, 7));

export type InProcessBusOptions = {
  /** Messages every known group has consumed are pruned once older than this. */
  retentionMs?: number;
  pollIntervalMs?: number;
  /** How often (at most) consumed messages are pruned. */
  pruneIntervalMs?: number;
};

/**
 * The embedded bus: messages and group offsets in a SQLite file (or in memory without a file),
 * delivered in-process. Publishing is acknowledged once the insert committed, so a crash after
 * the relay's checkpoint loses nothing; a group resumes from its committed offset on restart.
 * Within one process, one member of a group is active at a time and the next takes over when it
 * stops — the work is shared, never done twice by two live members.
 */
export const inProcessBus = (file: string | undefined, options: InProcessBusOptions = {}): Bus => {
  const db = openSqlite(file ?? ':memory:');
  db.exec(SCHEMA);
  const retentionMs = options.retentionMs ?? 60 * 60 * 1000;
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const published = new EventEmitter();
  published.setMaxListeners(0);
  const activeGroups = new Map<string, Promise<void>>();
  const consumers = new Set<Consumer>();

  const insert = db.prepare('INSERT INTO messages (topic, key, value, created_at) VALUES (?, ?, ?, ?)');
  const publishTx = db.transaction((messages: OutgoingMessage[]) => {
    const now = Date.now();
    for (const message of messages) insert.run(message.topic, message.key, message.value, now);
  });
  const groupOffset = db.prepare<[string], { seq: number }>('SELECT seq FROM group_offsets WHERE grp = ?');
  const commit = db.prepare('INSERT INTO group_offsets (grp, seq) VALUES (?, ?) ON CONFLICT (grp) DO UPDATE SET seq = excluded.seq');
  const prune = db.prepare('DELETE FROM messages WHERE seq <= (SELECT coalesce(min(seq), 0) FROM group_offsets) AND created_at < ?');
  const lastSeq = db.prepare<[], { seq: number | null }>('SELECT max(seq) AS seq FROM messages');
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000;

  let lastPrune = Date.now();
  const maybePrune = () => {
    if (Date.now() - lastPrune < pruneIntervalMs) return;
    lastPrune = Date.now();
    prune.run(Date.now() - retentionMs);
  };

  /** Groups consumed here and their topics, for lag(). */
  const groupTopics = new Map<string, string[]>();

  const consume = async (options: ConsumeOptions): Promise<Consumer> => {
    const handler = consumeHandler(options);
    groupTopics.set(options.group, [...new Set([...(groupTopics.get(options.group) ?? []), ...options.topics])]);
    let stopped = false;
    let wake: (() => void) | null = null;
    const onPublished = () => wake?.();
    published.on('published', onPublished);
    const placeholders = options.topics.map(() => '?').join(', ');
    const fetchRows = db.prepare<unknown[], Row>(
      `SELECT seq, topic, key, value FROM messages WHERE seq > ? AND topic IN (${placeholders}) ORDER BY seq LIMIT ${FETCH_LIMIT[handler.kind]}`,
    );
    /**
     * The group's next rows; when there are none, also the last seq of the whole log, read in the
     * same read transaction: nothing of the group's topics lies up to it, so the group's offset can
     * move there. An idle group (no message on its topics for a long time) therefore never pins
     * retention. A message committed after the snapshot has a higher seq, so it is never skipped.
     */
    const fetch = db.transaction((offset: number): { rows: Row[]; idleUpTo: number | null } => {
      const rows = fetchRows.all(offset, ...options.topics);
      return { rows, idleUpTo: rows.length === 0 ? (lastSeq.get()?.seq ?? null) : null };
    });
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, ms);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });

    /**
     * One message at a time. The offset is committed once per fetched batch (one write instead of
     * one per message), up to the last message handled: a crash in between redelivers those —
     * at-least-once, as before — and a failed message is retried first after the back-off.
     */
    const handleEach = async (handle: (message: IncomingMessage) => Promise<void>, rows: Row[]): Promise<Outcome> => {
      let handled: number | null = null;
      let failed = false;
      for (const row of rows) {
        if (stopped) break;
        const message = toMessage(row);
        try {
          await handle(message);
          handled = row.seq;
        } catch (error) {
          options.onError?.(error, message);
          failed = true;
          break;
        }
      }
      if (handled !== null) commit.run(options.group, handled);
      return { handled, failed };
    };

    /**
     * The whole fetched batch in one call; once it resolved, one write moves the offset past its
     * last message. If it throws, nothing is committed and the same rows are fetched again after
     * the back-off.
     */
    const handleBatch = async (handle: (messages: IncomingMessage[]) => Promise<void>, rows: Row[]): Promise<Outcome> => {
      const messages = rows.map(toMessage);
      try {
        await handle(messages);
      } catch (error) {
        options.onError?.(error, messages[0]);
        return { handled: null, failed: true };
      }
      const last = rows[rows.length - 1].seq;
      commit.run(options.group, last);
      return { handled: last, failed: false };
    };

    const run = async () => {
      // Wait for the group's current member to stop: one active member per group in a process.
      while (!stopped && activeGroups.has(options.group)) await activeGroups.get(options.group);
      if (stopped) return;
      let release!: () => void;
      activeGroups.set(options.group, new Promise<void>((resolve) => (release = resolve)));
      try {
        if (!groupOffset.get(options.group)) commit.run(options.group, 0);
        let failures = 0;
        while (!stopped) {
          const offset = groupOffset.get(options.group)?.seq ?? 0;
          const { rows, idleUpTo } = fetch(offset);
          if (rows.length === 0) {
            if (idleUpTo !== null && idleUpTo > offset) commit.run(options.group, idleUpTo);
            maybePrune();
            await sleep(pollIntervalMs);
            continue;
          }
          const outcome = handler.kind === 'batch' ? await handleBatch(handler.handleBatch, rows) : await handleEach(handler.handle, rows);
          if (outcome.handled !== null) failures = 0;
          if (outcome.failed && !stopped) await sleep(backOffMs(++failures));
        }
      } finally {
        activeGroups.delete(options.group);
        release();
      }
    };

    const running = run();
    const consumer: Consumer = {
      stop: async () => {
        stopped = true;
        published.off('published', onPublished);
        wake?.();
        await running;
        consumers.delete(consumer);
      },
    };
    consumers.add(consumer);
    return consumer;
  };

  return {
    async publish(messages) {
      if (messages.length === 0) return;
      publishTx(messages);
      published.emit('published');
    },
    consume,
    async lag() {
      if (!db.open) return [];
      return [...groupTopics].map(([group, topics]) => {
        const offset = groupOffset.get(group)?.seq ?? 0;
        const row = db
          .prepare(`SELECT count(*) AS n FROM messages WHERE seq > ? AND topic IN (${topics.map(() => '?').join(', ')})`)
          .get(offset, ...topics) as { n: number | bigint };
        return { group, topics, messages: Number(row.n) };
      });
    },
    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      if (db.open) db.close();
    },
  };
};

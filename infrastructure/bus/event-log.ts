import type { LogTail, TailEntry } from '../event-store/tail.ts';
import { openSqlite, type SqliteDatabase } from '../sqlite.ts';
import { catchUpSlices } from '../catch-up.ts';
import { topicFor } from './envelope.ts';
import { migrateCopyingBus, OFFSETS_SCHEMA } from './event-log-migration.ts';
import { consumeHandler, type Bus, type ConsumeOptions, type Consumer, type GroupLag, type IncomingMessage } from './port.ts';

/** Events read from the log per turn; a batch handed to `handleBatch` holds at most this many. */
const READ_LIMIT = 500;
/** How many events after a group's offset its lag counts at most (as the projection lag does). */
const LAG_WINDOW = 10_000;

const backOffMs = (failures: number): number => Math.min(5000, 50 * 2 ** Math.min(failures, 7));

export type EventLogBusOptions = {
  /**
   * A group the bus has no offset for starts with the events of this last span (default one hour,
   * what the copying bus kept of consumed messages): a group added to a long-running deployment
   * does not get the whole history (webhook deliveries for years-old votes), and in a fresh
   * deployment it gets everything.
   */
  newGroupHorizonMs?: number;
  /**
   * A group with nothing to do moves its offset along the log in memory and writes it at most this
   * often (default 1 s) and when it stops: skipping events of other topics costs no write.
   */
  idleCommitIntervalMs?: number;
  /** Where the relay had got to, for upgrading a bus file of the copying bus (see the migration). */
  legacyRelayCheckpoint?: () => Promise<bigint | null>;
};

/** A log entry as a message: its envelope is made only for a consumer that reads `value`. */
const toMessage = (entry: TailEntry): IncomingMessage => ({
  topic: topicFor(entry.category),
  key: entry.streamName,
  get value() {
    return entry.envelope;
  },
  get event() {
    return entry.event;
  },
  offset: entry.position.toString(),
});

/**
 * The embedded bus: consumer groups read the event log itself. A topic is a stream category
 * (`events.vote`: the events of the `vote-…` streams), the key is the stream, the offset is the
 * event's global position; nothing is copied and nothing is published (there is no relay on the
 * embedded runtime). Each group keeps its own offset (the position it has handled up to) in a small
 * SQLite file of its own (`bus.db`), written after its handler resolved: at-least-once, and a
 * crash redelivers at most the batch in hand. One member of a group is active at a time in a
 * process; the next takes over when it stops.
 *
 * A group that has read everything waits at the end of the log. One follower per bus reads each
 * new stretch of the log once for all the waiting groups — as soon as this process appended it (the
 * tail's append signal) or within the tail's poll interval when another process did (the
 * standalone dispatcher on the same DATA_DIR) — wakes only the groups with events of their topics
 * in it, and moves the others' offsets past it without waking them. The SQLite tail shares that
 * read with the projections' subscription and with the groups it wakes (same rows, same turn).
 */
export const eventLogBus = async (tail: LogTail, file: string | undefined, options: EventLogBusOptions = {}): Promise<Bus> => {
  const db: SqliteDatabase = openSqlite(file ?? ':memory:');
  db.defaultSafeIntegers(true);
  await migrateCopyingBus(db, options.legacyRelayCheckpoint);
  db.exec(OFFSETS_SCHEMA);
  const horizonMs = options.newGroupHorizonMs ?? 60 * 60 * 1000;
  const idleCommitIntervalMs = options.idleCommitIntervalMs ?? 1_000;

  const storedOffset = db.prepare<[string], { position: bigint }>('SELECT position FROM log_offsets WHERE grp = ?');
  const writeOffset = db.prepare('INSERT INTO log_offsets (grp, position) VALUES (?, ?) ON CONFLICT (grp) DO UPDATE SET position = excluded.position');

  /** A group waiting at the end of the log for events of its categories. */
  type Waiter = { offset: () => bigint; categories: Set<string>; wake: () => void; advance: (position: bigint) => void };
  const waiters = new Set<Waiter>();
  let scanning = false;
  let scanAgain = false;
  /** Reads what follows the waiting groups' offsets (usually one read: they wait at the same place). */
  const scanOnce = async () => {
    const byOffset = new Map<bigint, Waiter[]>();
    for (const waiter of waiters) {
      const list = byOffset.get(waiter.offset());
      if (list) list.push(waiter);
      else byOffset.set(waiter.offset(), [waiter]);
    }
    for (const [offset, list] of byOffset) {
      const entries = await tail.read(offset, READ_LIMIT);
      if (entries.length === 0) continue;
      const last = entries[entries.length - 1].position;
      for (const waiter of list) {
        if (!waiters.has(waiter)) continue;
        if (entries.some((entry) => waiter.categories.has(entry.category))) {
          waiters.delete(waiter);
          waiter.wake();
        } else {
          waiter.advance(last);
          if (entries.length === READ_LIMIT) scanAgain = true;
        }
      }
    }
  };
  const scan = () => {
    if (scanning) {
      scanAgain = true;
      return;
    }
    if (waiters.size === 0) return;
    scanning = true;
    void (async () => {
      try {
        do {
          scanAgain = false;
          await scanOnce();
        } while (scanAgain && waiters.size > 0);
      } catch {
        // The log could not be read (closing, or a transient error): the next signal or poll tries again.
      } finally {
        scanning = false;
      }
    })();
  };
  const stopListening = tail.onAppended(scan);
  // Keeps the process alive while it has consumers (their waits are promises, not timers).
  const poller = setInterval(scan, tail.pollIntervalMs);
  poller.unref();

  const activeGroups = new Map<string, Promise<void>>();
  const consumers = new Set<Consumer>();
  /** Groups consumed here and their topics, for lag(). */
  const groupTopics = new Map<string, string[]>();
  /** Where the active member of each group has got to (its committed offset, or further when idle). */
  const reached = new Map<string, bigint>();
  /** Offset writes the file refused, by group (for the metrics). */
  const refusedWrites = new Map<string, number>();

  const offsetOf = (group: string): bigint | null => {
    const row = storedOffset.get(group);
    return row ? BigInt(row.position) : null;
  };

  /** A group seen for the first time: its offset is set before `consume` resolves, so lag() knows it at once. */
  const ensureOffset = async (group: string): Promise<void> => {
    if (offsetOf(group) !== null) return;
    const start = await tail.positionBefore(new Date(Date.now() - horizonMs).toISOString());
    if (offsetOf(group) === null) writeOffset.run(group, start);
  };

  const consume = async (consumeOptions: ConsumeOptions): Promise<Consumer> => {
    const handler = consumeHandler(consumeOptions);
    const { group } = consumeOptions;
    if (!db.open) throw new Error('the bus is closed');
    groupTopics.set(group, [...new Set([...(groupTopics.get(group) ?? []), ...consumeOptions.topics])]);
    await ensureOffset(group);
    // Topics are stream categories: `events.vote` is the `vote-…` streams.
    const categories = new Set(consumeOptions.topics.filter((topic) => topic.startsWith('events.')).map((topic) => topic.slice('events.'.length)));
    let stopped = false;
    let wake: (() => void) | null = null;
    /** Sleeps for a back-off; stop ends it early. */
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

    let offset = 0n;
    let committed = 0n;
    let committedAt = Date.now();
    /**
     * Moves the group on; its offset is written to the file. A write the file refuses (the disk
     * full, the file locked past the busy timeout) is reported and tried again with the next
     * commit: the messages handled meanwhile may come again after a restart (at-least-once), but
     * the consumer goes on — a throw here ended its loop and, unhandled, the whole process.
     */
    const commit = (position: bigint) => {
      offset = position;
      reached.set(group, position);
      if (position === committed) return;
      try {
        writeOffset.run(group, position);
      } catch {
        refusedWrites.set(group, (refusedWrites.get(group) ?? 0) + 1);
        return;
      }
      committed = position;
      committedAt = Date.now();
    };
    /** Past events of other topics: in memory at once, written now and then. */
    const advance = (position: bigint) => {
      offset = position;
      reached.set(group, position);
      if (Date.now() - committedAt >= idleCommitIntervalMs && db.open) commit(position);
    };
    /** Waits at the end of the log until the follower sees events of this group's topics (or stop). */
    const waitForEvents = () =>
      new Promise<void>((resolve) => {
        if (stopped) return resolve();
        const waiter: Waiter = {
          offset: () => offset,
          categories,
          advance,
          wake: () => {
            wake = null;
            resolve();
          },
        };
        wake = () => {
          waiters.delete(waiter);
          wake = null;
          resolve();
        };
        waiters.add(waiter);
      });

    /**
     * One message at a time; the offset is written once per read, up to what was handled: all of
     * the read when every message succeeded, else up to the message that failed (retried first
     * after the back-off) or the last one handled before a stop.
     */
    const handleEach = async (handle: (message: IncomingMessage) => Promise<void>, entries: TailEntry[], last: bigint): Promise<boolean> => {
      let passed: bigint | null = null;
      for (const entry of entries) {
        if (stopped) break;
        const message = toMessage(entry);
        try {
          await handle(message);
          passed = entry.position;
        } catch (error) {
          consumeOptions.onError?.(error, message);
          // Everything before the failed message is done (the events in between are not the group's).
          if (entry.position - 1n > offset) commit(entry.position - 1n);
          return false;
        }
      }
      if (!stopped) passed = last;
      if (passed !== null && passed > offset) commit(passed);
      return true;
    };

    /** The group's messages of one read in one call; once it resolved, the offset moves past the whole read. */
    const handleBatch = async (handle: (messages: IncomingMessage[]) => Promise<void>, entries: TailEntry[], last: bigint): Promise<boolean> => {
      const messages = entries.map(toMessage);
      try {
        await handle(messages);
      } catch (error) {
        consumeOptions.onError?.(error, messages[0]);
        return false;
      }
      commit(last);
      return true;
    };

    const run = async () => {
      // Wait for the group's current member to stop: one active member per group in a process.
      while (!stopped && activeGroups.has(group)) await activeGroups.get(group);
      if (stopped) return;
      let release!: () => void;
      activeGroups.set(group, new Promise<void>((resolve) => (release = resolve)));
      try {
        offset = committed = offsetOf(group) ?? 0n;
        reached.set(group, offset);
        let failures = 0;
        const slices = catchUpSlices();
        while (!stopped) {
          const entries = await tail.read(offset, READ_LIMIT);
          if (entries.length === 0) {
            await waitForEvents();
            slices.waited();
            continue;
          }
          const last = entries[entries.length - 1].position;
          const mine = entries.filter((entry) => categories.has(entry.category));
          if (mine.length === 0) {
            // Nothing of this group's: move on in memory, write the offset now and then.
            advance(last);
            // A group far behind skips through the log in reads of READ_LIMIT: let I/O in between.
            if (entries.length === READ_LIMIT) await new Promise((resolve) => setImmediate(resolve));
            slices.waited();
            continue;
          }
          const ok = handler.kind === 'batch' ? await handleBatch(handler.handleBatch, mine, last) : await handleEach(handler.handle, mine, last);
          if (ok) {
            failures = 0;
            // The read reached the end of the log and this process knows of nothing after it: wait
            // for the follower instead of reading again at once.
            if (entries.length < READ_LIMIT && tail.knownHead && offset >= tail.knownHead()) {
              await waitForEvents();
              slices.waited();
            }
            // Behind: handled batches would follow one another in the same turn of the event loop up
            // to the head, holding off requests, timers and I/O, and keeping every batch read in it
            // (the log shares a turn's reads between readers and forgets them at the next turn).
            else if (entries.length === READ_LIMIT) await slices.afterFullBatch();
          } else if (!stopped) {
            await sleep(backOffMs(++failures));
            slices.waited();
          }
        }
        if (offset !== committed && db.open) commit(offset);
      } finally {
        reached.delete(group);
        activeGroups.delete(group);
        release();
      }
    };

    const running = run();
    const consumer: Consumer = {
      stop: async () => {
        stopped = true;
        wake?.();
        await running;
        consumers.delete(consumer);
        if (consumers.size === 0) poller.unref();
      },
    };
    consumers.add(consumer);
    poller.ref();
    return consumer;
  };

  /** The group's messages after its offset, counted over at most LAG_WINDOW events of the log. */
  const lagOf = async (group: string, topics: string[]): Promise<GroupLag> => {
    const from = reached.get(group) ?? offsetOf(group) ?? 0n;
    const wanted = new Set(topics);
    const window = await tail.read(from, LAG_WINDOW);
    let messages = 0;
    for (const entry of window) if (wanted.has(topicFor(entry.category))) messages += 1;
    return { group, topics, messages };
  };

  return {
    consume,
    async lag() {
      if (!db.open) return [];
      return Promise.all([...groupTopics].map(([group, topics]) => lagOf(group, topics)));
    },
    offsetWriteFailures: () => [...refusedWrites].map(([group, failures]) => ({ group, failures })),
    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      clearInterval(poller);
      stopListening();
      if (db.open) db.close();
    },
  };
};

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../sqlite.ts';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { sqliteEventStore } from '../event-store/sqlite.ts';
import { portTail } from '../event-store/tail.ts';
import type { EventStore, NewEvent } from '../event-store/port.ts';
import { busContract, type BusUnderTest } from './bus.contract.ts';
import { eventLogBus } from './event-log.ts';
import { fromBusMessage, toBusMessage } from './envelope.ts';
import type { IncomingMessage } from './port.ts';

const dir = mkdtempSync(join(tmpdir(), 'event-log-bus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let events = '';
let offsets = '';
beforeEach(() => {
  const name = randomUUID();
  events = join(dir, `${name}.events.db`);
  offsets = join(dir, `${name}.bus.db`);
});

const event = (value: string, timestamp = new Date().toISOString()): NewEvent => ({
  id: randomUUID(),
  type: 'ContractEvent',
  data: { value },
  metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp, schema_version: 1 },
});

/** Appends one event per entry, in order (the appends share one group commit). */
const appendAll = async (store: EventStore, entries: { streamName: string; value: string }[]) =>
  void (await Promise.all(entries.map(({ streamName, value }) => store.append(streamName, [event(value)]))));

busContract('event log (SQLite tail)', async (): Promise<BusUnderTest> => {
  const store = sqliteEventStore(events, { pollIntervalMs: 20 });
  const bus = await eventLogBus(store.tail, offsets);
  return {
    bus,
    append: (entries) => appendAll(store, entries),
    close: async () => {
      await bus.close();
      await store.close();
    },
  };
});

// The tail any event store offers through its port (how the bus reads EventStoreDB without a broker).
busContract('event log (port tail)', async (): Promise<BusUnderTest> => {
  const store = sqliteEventStore(events, { pollIntervalMs: 20 });
  const bus = await eventLogBus(portTail(store, 20), offsets);
  return {
    bus,
    append: (entries) => appendAll(store, entries),
    close: async () => {
      await bus.close();
      await store.close();
    },
  };
});

const collect = (into: IncomingMessage[]) => async (message: IncomingMessage) => void into.push(message);
const valuesOf = (messages: IncomingMessage[]) => messages.map((message) => (fromBusMessage(message).data as { value: string }).value);

describe('event-log bus', () => {
  it('goes on when its file refuses an offset (locked, or a full disk), and stores the offset later', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    const bus = await eventLogBus(store.tail, offsets);
    const seen: IncomingMessage[] = [];
    const refused = () => bus.offsetWriteFailures?.().find((entry) => entry.group === 'g')?.failures ?? 0;
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handle: collect(seen) });
    // Another connection holds the file's write lock past the bus's busy timeout: its offset write fails.
    const locker = new Database(offsets);
    locker.exec('BEGIN IMMEDIATE');
    try {
      await appendAll(store, [{ streamName: 'vote-1', value: 'a' }]);
      const deadline = Date.now() + 20_000;
      while (refused() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      // Counted for the metrics (bus_offset_write_failures{group}).
      expect(refused()).toBeGreaterThan(0);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    await appendAll(store, [{ streamName: 'vote-2', value: 'b' }]);
    const deadline = Date.now() + 10_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(valuesOf(seen)).toEqual(['a', 'b']);
    await consumer.stop();
    const stored = new Database(offsets, { readonly: true });
    try {
      // The offset refused while the file was locked was stored afterwards: past both events.
      const row = stored.prepare('SELECT position FROM log_offsets WHERE grp = ?').get('g') as { position: number | bigint };
      expect(BigInt(row.position)).toBe(await store.headPosition());
    } finally {
      stored.close();
    }
    await bus.close();
    await store.close();
  }, 60_000);

  it('keeps no copy of the events: its file holds the group offsets only', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    const bus = await eventLogBus(store.tail, offsets);
    const seen: IncomingMessage[] = [];
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handle: collect(seen) });
    const big = 'x'.repeat(2_000);
    await appendAll(store, Array.from({ length: 500 }, (_, i) => ({ streamName: `vote-${i}`, value: `${i}${big}` })));
    await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(500);
    await consumer.stop();
    await bus.close();
    await store.close();
    const inspect = new Database(offsets, { readonly: true });
    const tables = inspect.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    expect(tables.map((table) => table.name)).toEqual(['log_offsets']);
    const stored = inspect.prepare('SELECT grp, position FROM log_offsets').all();
    inspect.close();
    expect(stored).toEqual([{ grp: 'g', position: 500 }]);
    // A megabyte of events went through; the bus file stays a few pages.
    expect(statSync(offsets).size + statSync(`${offsets}-wal`, { throwIfNoEntry: false })?.size!).toBeLessThan(100_000);
  });

  it('serves the same value a relay would have published', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    const bus = await eventLogBus(store.tail, offsets);
    const seen: IncomingMessage[] = [];
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handleBatch: async (messages) => void seen.push(...messages) });
    await store.append('vote-1', [{ ...event('a'), data: { value: 'a', nested: { quote: 'say "hi"', list: [1, null, true] } } }]);
    await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(1);
    const [recorded] = await store.readStream('vote-1');
    const { topic, key, value, offset } = seen[0];
    expect({ topic, key, value, offset }).toEqual({ ...toBusMessage(recorded), offset: recorded.position.toString() });
    // The decoded event comes along, so consumers need not parse the value.
    expect(seen[0].event).toEqual(recorded);
    expect(fromBusMessage(seen[0])).toEqual(recorded);
    await consumer.stop();
    await bus.close();
    await store.close();
  });

  it('delivers what another process appends to the same file (within the poll interval)', async () => {
    const reader = sqliteEventStore(events, { pollIntervalMs: 20 });
    const writer = sqliteEventStore(events, { pollIntervalMs: 20 });
    const bus = await eventLogBus(reader.tail, offsets);
    const seen: IncomingMessage[] = [];
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handle: collect(seen) });
    await appendAll(writer, [{ streamName: 'vote-1', value: 'a' }, { streamName: 'favourite-1', value: 'b' }, { streamName: 'vote-2', value: 'c' }]);
    await expect.poll(() => valuesOf(seen), { timeout: 20_000 }).toEqual(['a', 'c']);
    await consumer.stop();
    await bus.close();
    await writer.close();
    await reader.close();
  });

  it('hands over a long stretch of the log written elsewhere read after read, without waiting for its poll between them', async () => {
    const writer = sqliteEventStore(events);
    for (let i = 0; i < 1_200; i += 100) await appendAll(writer, Array.from({ length: 100 }, (_, j) => ({ streamName: `vote-${i + j}`, value: String(i + j) })));
    // A poll interval far longer than the test: only reading on at once gets through 1,200 events (reads of 500).
    const reader = sqliteEventStore(events, { pollIntervalMs: 60_000 });
    const bus = await eventLogBus(reader.tail, offsets);
    let seen = 0;
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handleBatch: async (messages) => void (seen += messages.length) });
    await expect.poll(() => seen, { timeout: 5_000 }).toBe(1_200);
    await consumer.stop();
    await bus.close();
    await reader.close();
    await writer.close();
  });

  it('lets timers and I/O run between the batches a group behind handles (time-sliced), instead of reading to the head in one turn', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 60_000 });
    for (let i = 0; i < 2_000; i += 100) await appendAll(store, Array.from({ length: 100 }, (_, j) => ({ streamName: `vote-${i + j}`, value: String(i + j) })));
    const bus = await eventLogBus(store.tail, offsets);
    let seen = 0;
    let seenWhenTimerRan: number | null = null;
    // Each batch of 500 holds the event loop 10 ms (as handling it would): four of them outlast a catch-up slice.
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    const consumer = await bus.consume({ group: 'g', topics: ['events.vote'], handleBatch: async (messages) => void ((seen += messages.length), busy(10)) });
    // Set once the group is under way: what a request's timer finds when the group lets it run.
    setTimeout(() => (seenWhenTimerRan = seen), 0);
    await expect.poll(() => seen, { timeout: 5_000 }).toBe(2_000);
    expect(seenWhenTimerRan).not.toBeNull();
    expect(seenWhenTimerRan).toBeLessThan(2_000);
    await consumer.stop();
    await bus.close();
    await store.close();
  });

  it('moves an idle group along the log, so its lag stays zero and a restart does not re-read what it skipped', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    const bus = await eventLogBus(store.tail, offsets, { idleCommitIntervalMs: 0 });
    const idle: IncomingMessage[] = [];
    const consumer = await bus.consume({ group: 'idle', topics: ['events.webhook'], handle: collect(idle) });
    await appendAll(store, Array.from({ length: 50 }, (_, i) => ({ streamName: `vote-${i}`, value: String(i) })));
    const offsetOf = () => {
      const inspect = new Database(offsets, { readonly: true });
      const row = inspect.prepare("SELECT position FROM log_offsets WHERE grp = 'idle'").get() as { position: number } | undefined;
      inspect.close();
      return row?.position;
    };
    await expect.poll(offsetOf, { timeout: 20_000 }).toBe(50);
    expect(await bus.lag!()).toEqual([{ group: 'idle', topics: ['events.webhook'], messages: 0 }]);
    await store.append('webhook-1', [event('w')]);
    await expect.poll(() => valuesOf(idle), { timeout: 20_000 }).toEqual(['w']);
    await consumer.stop();
    await bus.close();
    await store.close();
  });

  it('starts a group it has no offset for with the events of the last hour', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    await store.append('vote-1', [event('two hours ago', old)]);
    await store.append('vote-2', [event('two hours ago too', old)]);
    await store.append('vote-3', [event('now')]);
    const bus = await eventLogBus(store.tail, offsets);
    const seen: IncomingMessage[] = [];
    const consumer = await bus.consume({ group: 'new', topics: ['events.vote'], handle: collect(seen) });
    await store.append('vote-4', [event('later')]);
    await expect.poll(() => valuesOf(seen), { timeout: 20_000 }).toEqual(['now', 'later']);
    await consumer.stop();
    await bus.close();
    await store.close();
  });

  it('keeps a process that only consumes alive while it consumes, and lets it exit once the consumer stopped', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'consume-only.ts'), dir, '1500'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const started = Date.now();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(await exited).toBe(0);
    expect(output).toContain('consuming');
    expect(output).toContain('stopped');
    // It ran until its consumer stopped (1.5 s after it started consuming), not a moment less.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  }, 60_000);

  it('upgrades a bus file of the copying bus: each group resumes where it was, the copy is dropped', async () => {
    const store = sqliteEventStore(events, { pollIntervalMs: 20 });
    // Events 1–6 in the log; the relay had published 1–5 into the old bus file.
    await appendAll(store, ['a', 'b', 'c', 'd', 'e', 'f'].map((value, i) => ({ streamName: i % 2 === 0 ? `vote-${i}` : `favourite-${i}`, value })));
    const recorded = await store.readAll();
    const legacy = new Database(offsets);
    legacy.exec(`
      CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, created_at INTEGER NOT NULL);
      CREATE INDEX messages_by_topic ON messages (topic, seq);
      CREATE TABLE group_offsets (grp TEXT PRIMARY KEY, seq INTEGER NOT NULL);
    `);
    const insert = legacy.prepare('INSERT INTO messages (topic, key, value, created_at) VALUES (?, ?, ?, ?)');
    // Seqs 1–5 carry positions 1–5; seq 6 is a republished duplicate of position 3 (a relay crash).
    for (const message of [...recorded.slice(0, 5), recorded[2]].map(toBusMessage)) insert.run(message.topic, message.key, message.value, Date.now());
    legacy.prepare('INSERT INTO group_offsets (grp, seq) VALUES (?, ?)').run('behind', 2); // had handled seqs 1–2
    legacy.prepare('INSERT INTO group_offsets (grp, seq) VALUES (?, ?)').run('done', 6); // had handled everything published
    legacy.close();

    const bus = await eventLogBus(store.tail, offsets, { legacyRelayCheckpoint: async () => 5n });
    const inspect = new Database(offsets, { readonly: true });
    expect((inspect.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((table) => table.name)).toEqual([
      'log_offsets',
    ]);
    // "behind": the lowest position after its seq is 3 (seq 3 and the duplicate at seq 6); "done": the relay's checkpoint.
    expect(inspect.prepare('SELECT grp, position FROM log_offsets ORDER BY grp').all()).toEqual([
      { grp: 'behind', position: 2 },
      { grp: 'done', position: 5 },
    ]);
    inspect.close();
    const behind: IncomingMessage[] = [];
    const done: IncomingMessage[] = [];
    const topics = ['events.vote', 'events.favourite'];
    const consumers = [
      await bus.consume({ group: 'behind', topics, handle: collect(behind) }),
      await bus.consume({ group: 'done', topics, handle: collect(done) }),
    ];
    await expect.poll(() => valuesOf(behind), { timeout: 20_000 }).toEqual(['c', 'd', 'e', 'f']);
    // Event 6 was never published: the upgraded group gets it from the log.
    await expect.poll(() => valuesOf(done), { timeout: 20_000 }).toEqual(['f']);
    for (const consumer of consumers) await consumer.stop();
    await bus.close();
    await store.close();
  });
});

import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { eventStoreDbEventStore } from '../../infrastructure/event-store/eventstoredb.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { newEventId } from '../../infrastructure/ids.ts';

/**
 * Baseline of item 2: the event store adapter the service uses (SQLite in a temp file, or
 * EventStoreDB when EVENTSTORE_URL is set), appending one VoteCast-sized event to a new stream
 * with `no_stream` and an event id made as the service makes them, from `concurrency` loops, for `durationS` (warm-up first). IPC:
 * `{type: 'run', durationS, warmupS, concurrency}` → `{type: 'result', appends, seconds}`.
 */
type Run = { type: 'run'; durationS: number; warmupS: number; concurrency: number };

const run = await new Promise<Run>((resolve) =>
  process.on('message', (message: Run) => {
    if (message.type === 'run') resolve(message);
  }),
);

const directory = mkdtempSync(join(tmpdir(), 'bench-raw-'));
const store: EventStore = process.env.EVENTSTORE_URL ? eventStoreDbEventStore(process.env.EVENTSTORE_URL) : sqliteEventStore(join(directory, 'events.db'));
const accountId = randomUUID();
let next = Date.now() * 1000;

const appendOne = async () => {
  const voteId = next++;
  const now = new Date().toISOString();
  await store.append(
    `vote-${voteId}`,
    [
      {
        id: newEventId(),
        type: 'VoteCast',
        data: { vote_id: voteId, account_id: accountId, image_id: 'bench-image', sub_id: 'bench', value: 1, country_code: null, ip_address: null, created_at: now },
        metadata: { account_id: accountId, correlation_id: randomUUID(), causation_id: null, request_id: randomUUID(), actor: 'bench', timestamp: now, schema_version: 1 },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
};

const loop = async (seconds: number): Promise<{ appends: number; seconds: number }> => {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let appends = 0;
  await Promise.all(
    Array.from({ length: run.concurrency }, async () => {
      while (performance.now() < deadline) {
        await appendOne();
        appends += 1;
      }
    }),
  );
  return { appends, seconds: (performance.now() - started) / 1000 };
};

await loop(run.warmupS);
const result = await loop(run.durationS);
await store.close();
rmSync(directory, { recursive: true, force: true });
process.send?.({ type: 'result', ...result });
process.disconnect?.();

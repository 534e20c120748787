import { redactSecrets, hasRedactions } from '../domain/audit/redact.ts';
import type { EventStore, NewEvent, RecordedEvent } from '../infrastructure/event-store/port.ts';
import { allEvents } from '../infrastructure/event-store/scan.ts';
import { parseEventLine, toEventLine, EventLineError, type EventLine } from '../infrastructure/event-store/ndjson.ts';

async function* streamEvents(eventStore: EventStore, stream: string, batchSize = 1_000): AsyncGenerator<RecordedEvent> {
  let fromRevision = 0n;
  for (;;) {
    const batch = await eventStore.readStream(stream, { fromRevision, maxCount: batchSize });
    yield* batch;
    if (batch.length < batchSize) return;
    fromRevision = batch[batch.length - 1].revision + 1n;
  }
}

/**
 * The log, or one stream, as NDJSON lines (see ndjson.ts). Secrets are redacted unless
 * `includeSecrets` (a backup for a restore): then key hashes and signing-secret ciphertexts are
 * kept — never a plaintext secret, which the log does not hold.
 */
export async function* exportLines(eventStore: EventStore, options: { stream?: string; includeSecrets?: boolean } = {}): AsyncGenerator<string> {
  const events = options.stream ? streamEvents(eventStore, options.stream) : allEvents(eventStore);
  for await (const event of events) {
    const line = toEventLine(event);
    yield `${JSON.stringify(options.includeSecrets ? line : redactSecrets(line))}\n`;
  }
}

export type ImportReport = { events: number; streams: number; redacted: boolean };

export class ImportError extends Error {}

const MAX_APPEND = 500;

/**
 * Appends an export into an empty event store, in the export's order: stream names, revisions,
 * event ids, data and metadata as they were, so projecting the imported log reproduces the same
 * read models. Consecutive events of one stream are appended together with the expected revision
 * their first one implies; a gap or reordering in a stream's revisions stops the import. A
 * redacted export imports too (an auditor's copy) but its API keys cannot authenticate:
 * `allowRedacted` must say so.
 */
export const importLines = async (
  eventStore: EventStore,
  lines: AsyncIterable<string>,
  options: { allowRedacted?: boolean; onProgress?: (events: number) => void } = {},
): Promise<ImportReport> => {
  if ((await eventStore.headPosition()) !== 0n) throw new ImportError('the event store is not empty: import only into an empty store');
  const nextRevision = new Map<string, bigint>();
  let run: { stream: string; first: bigint; events: NewEvent[] } | null = null;
  let count = 0;
  let redacted = false;
  const flush = async () => {
    if (!run || run.events.length === 0) return;
    await eventStore.append(run.stream, run.events, { expectedRevision: run.first === 0n ? 'no_stream' : run.first - 1n });
    count += run.events.length;
    options.onProgress?.(count);
    run = null;
  };
  let lineNumber = 0;
  for await (const raw of lines) {
    lineNumber += 1;
    const text = raw.trim();
    if (text.length === 0) continue;
    let line: EventLine;
    try {
      line = parseEventLine(text, lineNumber);
    } catch (error) {
      throw error instanceof EventLineError ? new ImportError(error.message) : error;
    }
    if (hasRedactions(line)) {
      if (!options.allowRedacted) throw new ImportError(`line ${lineNumber}: the export has redacted secrets (an audit copy); pass --allow-redacted to import it anyway`);
      redacted = true;
    }
    const revision = BigInt(line.revision);
    const expected = nextRevision.get(line.stream) ?? 0n;
    if (revision !== expected) throw new ImportError(`line ${lineNumber}: ${line.stream} revision ${revision}, expected ${expected}`);
    nextRevision.set(line.stream, revision + 1n);
    let current = run as { stream: string; first: bigint; events: NewEvent[] } | null;
    if (!current || current.stream !== line.stream || current.events.length >= MAX_APPEND) {
      await flush();
      current = { stream: line.stream, first: revision, events: [] };
      run = current;
    }
    current.events.push({ id: line.id, type: line.type, data: line.data, metadata: line.metadata });
  }
  await flush();
  return { events: count, streams: nextRevision.size, redacted };
};

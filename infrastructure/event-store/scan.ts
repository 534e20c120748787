import type { EventStore, RecordedEvent } from './port.ts';

export type LogScanFilter = {
  types?: readonly string[];
  streamPrefix?: string;
  /** Events the account caused (metadata), of its own stream, or naming it in their data. */
  accountId?: string;
};

export type LogScanPage = {
  events: RecordedEvent[];
  /** Where the next page starts (inclusive), null once the scan reached the head of the log. */
  nextFromPosition: bigint | null;
  /** How many events were read to fill this page. */
  scanned: number;
};

const accountStreamOf = (accountId: string) => `account-${accountId}`;

export const matchesScan = (event: RecordedEvent, filter: LogScanFilter): boolean => {
  if (filter.types && filter.types.length > 0 && !filter.types.includes(event.type)) return false;
  if (filter.streamPrefix && !event.streamName.startsWith(filter.streamPrefix)) return false;
  if (filter.accountId !== undefined) {
    const id = filter.accountId;
    const byMetadata = event.metadata.account_id === id;
    const ownStream = event.streamName === accountStreamOf(id);
    const inData = (event.data as { account_id?: unknown }).account_id === id;
    if (!byMetadata && !ownStream && !inData) return false;
  }
  return true;
};

/**
 * Reads the global log forwards from `fromPosition` (inclusive) and keeps the events that match,
 * until `limit` matched or `maxScanned` events were read — a filter that matches rarely cannot
 * make one request read the whole log. `nextFromPosition` continues the scan where it stopped
 * (also when the page holds fewer than `limit` events), null when the head was reached.
 */
export const scanLog = async (
  eventStore: Pick<EventStore, 'readAll'>,
  options: { fromPosition?: bigint; limit: number; filter?: LogScanFilter; maxScanned?: number; batchSize?: number },
): Promise<LogScanPage> => {
  const filter = options.filter ?? {};
  const maxScanned = options.maxScanned ?? 10_000;
  const batchSize = Math.max(1, Math.min(options.batchSize ?? 1_000, maxScanned));
  const from = options.fromPosition ?? 0n;
  let after = from > 0n ? from - 1n : 0n;
  const events: RecordedEvent[] = [];
  let scanned = 0;
  for (;;) {
    const want = Math.min(batchSize, maxScanned - scanned);
    const batch = await eventStore.readAll({ after, maxCount: want });
    for (const event of batch) {
      scanned += 1;
      after = event.position;
      if (matchesScan(event, filter)) {
        events.push(event);
        if (events.length === options.limit) return { events, nextFromPosition: event.position + 1n, scanned };
      }
    }
    if (batch.length < want) return { events, nextFromPosition: null, scanned };
    if (scanned >= maxScanned) return { events, nextFromPosition: after + 1n, scanned };
  }
};

/** The newest `limit` matching events (newest first), reading backwards from the head at most `maxScanned` events. */
export const latestEvents = async (
  eventStore: Pick<EventStore, 'readAll'>,
  options: { limit: number; filter?: LogScanFilter; maxScanned?: number },
): Promise<RecordedEvent[]> => {
  const filter = options.filter ?? {};
  const batch = await eventStore.readAll({ direction: 'backwards', maxCount: options.maxScanned ?? 10_000 });
  const found: RecordedEvent[] = [];
  for (const event of batch) {
    if (matchesScan(event, filter)) found.push(event);
    if (found.length === options.limit) break;
  }
  return found;
};

/** Every event of the log (or of one stream) in order, in batches, for exports. */
export async function* allEvents(eventStore: Pick<EventStore, 'readAll'>, batchSize = 1_000): AsyncGenerator<RecordedEvent> {
  let after: bigint | undefined;
  for (;;) {
    const batch = await eventStore.readAll({ after, maxCount: batchSize });
    for (const event of batch) yield event;
    if (batch.length < batchSize) return;
    after = batch[batch.length - 1].position;
  }
}

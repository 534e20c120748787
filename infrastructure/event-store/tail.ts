import { envelopeOf } from '../bus/envelope.ts';
import { streamCategory, type EventStore, type RecordedEvent } from './port.ts';

/**
 * One event of the log as a reader that routes events by stream needs it (the embedded bus):
 * position, stream and time, and the event as the bus carries it (`envelope`, JSON), which an
 * adapter may build only when it is asked for.
 */
export type TailEntry = {
  readonly position: bigint;
  readonly streamName: string;
  /** The stream's category (`vote` for `vote-123`). */
  readonly category: string;
  /** The event's metadata timestamp (ISO 8601). */
  readonly timestamp: string;
  readonly envelope: string;
  /**
   * The event itself, decoded once per entry (an adapter may decode it only when asked) and
   * shared by every reader the entry is handed to: read-only.
   */
  readonly event: RecordedEvent;
};

/**
 * Reading the log forwards for readers that keep their own positions: the embedded bus reads the
 * event log itself instead of a copy of it. `read` is exclusive of `after`, like every position
 * in the event store port.
 */
export interface LogTail {
  read(after: bigint, limit: number): Promise<TailEntry[]>;
  /** Called after each append this process committed; returns the unsubscribe function. */
  onAppended(listener: () => void): () => void;
  /** How often a reader should look for appends made by other processes. */
  readonly pollIntervalMs: number;
  /**
   * The highest position this process knows the log holds (its own appends, and what it has read),
   * where the adapter can tell: a reader whose last read came back short of its limit (the end of
   * the log) and that has handled up to it waits for the next append signal or poll instead of
   * reading again at once. Without it, readers read again.
   */
  knownHead?: () => bigint;
  /**
   * The position just before the first event stamped at or after `since` (ISO 8601): where a
   * reader that wants "the events since then" starts. The head when there is none.
   */
  positionBefore(since: string): Promise<bigint>;
}

/**
 * A tail over any event store, through its port (EventStoreDB when no broker is configured):
 * forward reads, no local append signal (readers poll).
 */
export const portTail = (store: Pick<EventStore, 'readAll' | 'headPosition'>, pollIntervalMs = 200): LogTail => ({
  async read(after, limit) {
    const events = await store.readAll({ after, maxCount: limit });
    return events.map((event) => ({
      position: event.position,
      streamName: event.streamName,
      category: streamCategory(event.streamName),
      timestamp: event.metadata.timestamp,
      envelope: envelopeOf(event),
      event,
    }));
  },
  onAppended: () => () => undefined,
  pollIntervalMs,
  async positionBefore(since) {
    let after = 0n;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 1_000 });
      for (const event of page) {
        if (event.metadata.timestamp >= since) return event.position - 1n;
        after = event.position;
      }
      if (page.length < 1_000) return after;
    }
  },
});

import { webhookAttemptsDecider } from '../domain/webhooks/decide.ts';
import { webhookAttemptsStream, type AttemptEntry } from '../domain/webhooks/delivery.ts';
import { metadataFor } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { newEventId } from '../infrastructure/ids.ts';
import { dispatcherContext } from './dispatcher-context.ts';

export type AttemptLogOptions = {
  /** Entries of one endpoint written together at most. */
  maxEntries: number;
  /** How long the first entry of a record waits for others before the record is written. */
  lingerMs: number;
  /**
   * Whether more attempts to the endpoint are on their way (requests out): when none is, nothing
   * would join the record while it lingers, so it is written at once (the end of a bus batch).
   */
  moreComing?: (webhookId: string) => boolean;
};

export type AttemptLog = {
  /** Resolves with the record's position once the attempt is in the store (rejects if the write failed). */
  record: (accountId: string, entry: AttemptEntry) => Promise<bigint>;
  /** The position of the last record this process wrote (0n: none yet). */
  lastPosition: () => bigint;
  /** Writes what is waiting. */
  flush: () => Promise<void>;
};

type Pending = { accountId: string; entries: AttemptEntry[]; waiting: { resolve: (position: bigint) => void; reject: (error: unknown) => void }[]; timer: NodeJS.Timeout | null };

/**
 * Attempt records: the outcomes of attempts to one endpoint are gathered for a moment (`lingerMs`,
 * or until `maxEntries`) and written as one WebhookAttemptsRecorded event on a stream of its own
 * — one append for many attempts instead of one per attempt. An attempt counts as recorded (its
 * delivery stored, its bus batch free to commit, its retry on the timetable) only once its record
 * is in the store; a crash before that loses only attempts not yet recorded, whose deliveries the
 * bus hands over again (at-least-once: those attempts may repeat).
 */
export const createAttemptLog = (eventStore: EventStore, options: AttemptLogOptions): AttemptLog => {
  const pending = new Map<string, Pending>();
  const writing = new Set<Promise<void>>();
  let last = 0n;

  const write = (webhookId: string) => {
    const batch = pending.get(webhookId);
    if (!batch) return;
    pending.delete(webhookId);
    if (batch.timer) clearTimeout(batch.timer);
    const [event] = webhookAttemptsDecider.decide(
      { type: 'RecordAttempts', webhook_id: webhookId, account_id: batch.accountId, attempts: batch.entries },
      webhookAttemptsDecider.initialState(),
    );
    const now = new Date().toISOString();
    const done = eventStore
      .append(
        webhookAttemptsStream(newEventId()),
        [{ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata: metadataFor(dispatcherContext(batch.accountId), now) }],
        { expectedRevision: 'no_stream' },
      )
      .then(
        (result) => {
          if (result.position > last) last = result.position;
          for (const waiter of batch.waiting) waiter.resolve(result.position);
        },
        (error) => {
          for (const waiter of batch.waiting) waiter.reject(error);
        },
      )
      .finally(() => writing.delete(done));
    writing.add(done);
  };

  return {
    record: (accountId, entry) =>
      new Promise<bigint>((resolve, reject) => {
        let batch = pending.get(entry.webhook_id);
        if (!batch) {
          batch = { accountId, entries: [], waiting: [], timer: null };
          pending.set(entry.webhook_id, batch);
          batch.timer = setTimeout(() => write(entry.webhook_id), options.lingerMs);
        }
        batch.entries.push(entry);
        batch.waiting.push({ resolve, reject });
        if (batch.entries.length >= options.maxEntries || options.moreComing?.(entry.webhook_id) === false) write(entry.webhook_id);
      }),
    lastPosition: () => last,
    flush: async () => {
      for (const webhookId of [...pending.keys()]) write(webhookId);
      await Promise.allSettled([...writing]);
    },
  };
};

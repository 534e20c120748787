import type { RecordedEvent } from '../event-store/port.ts';

/**
 * The bus port: topics of keyed messages, consumed by consumer groups with at-least-once
 * delivery. Every group receives every message of its topics; members of one group share the
 * work. Messages with the same key keep their order. A handler that throws gets the same
 * message(s) again (after a back-off); offsets are committed only after the handler resolved,
 * so work must be idempotent.
 */
export type OutgoingMessage = { topic: string; key: string; value: string };

export type IncomingMessage = OutgoingMessage & {
  offset: string;
  /**
   * The event the message carries, already decoded, when the bus holds it so (the embedded bus
   * reads the event log itself): `fromBusMessage` takes it instead of parsing `value`. Shared by
   * every group it is handed to: read-only.
   */
  readonly event?: RecordedEvent;
};

/**
 * Exactly one of `handle` and `handleBatch` (checked by `consume`, which throws otherwise):
 * - `handle` gets one message at a time, in bus order, the next only after it resolved.
 * - `handleBatch` gets each fetched batch at once, in bus order (an adapter may cap a batch, e.g.
 *   at 500). It may work on messages with different keys concurrently but must keep the order
 *   of one key (`byKey` in `by-key.ts` does both). Offsets move past the whole batch once it
 *   resolved; if it throws, the whole batch is handed over again after the back-off. This saves
 *   one awaited handler call and one offset write per message.
 * `onError` gets the failing message (for a batch: its first message). `onCrash` hears of the
 * consumer failing as a whole (Kafka: kafkajs gave up on it), which the adapter then replaces.
 */
export type ConsumeOptions = {
  group: string;
  topics: string[];
  handle?: (message: IncomingMessage) => Promise<void>;
  handleBatch?: (messages: IncomingMessage[]) => Promise<void>;
  onError?: (error: unknown, message: IncomingMessage) => void;
  onCrash?: (error: unknown) => void;
  /**
   * How many fetched batches of different partitions `handleBatch` may work on at once (default
   * 1): for a handler that waits on others per batch (the dispatcher's POSTs) and would otherwise
   * leave the process idle between batches. Each partition's batches still come one after the
   * other. A bus without partitions (the embedded one) hands over one batch at a time anyway.
   */
  concurrentBatches?: number;
};

/** `stop` lets the running handler finish and commits what was finished, then leaves the group. */
export type Consumer = { stop: () => Promise<void> };

/** Messages a consumer group still has to handle on its topics (for metrics and the console). */
export type GroupLag = { group: string; topics: string[]; messages: number };

/**
 * What consumers see. On the embedded runtime the bus is the event log itself (`event-log.ts`:
 * every event is on the topic of its stream category, nothing is published); a broker (Kafka) is
 * fed by the relay (`Broker.publish`).
 */
export interface Bus {
  consume(options: ConsumeOptions): Promise<Consumer>;
  /** The lag of every group consumed through this bus instance (this process's consumers). */
  lag?(): Promise<GroupLag[]>;
  /**
   * Consumer offsets this bus instance could not store so far, by group (the embedded bus: its file
   * locked or the disk full). Each is tried again with the next; until one is stored, the messages
   * handled meanwhile would come again after a restart (at-least-once).
   */
  offsetWriteFailures?(): { group: string; failures: number }[];
  close(): Promise<void>;
}

/** A bus that holds its own copy of the messages: they get there by `publish` (the relay). */
export interface Broker extends Bus {
  /** Resolves once every message is durably accepted by the bus (acknowledged). */
  publish(messages: OutgoingMessage[]): Promise<void>;
}

/** The handler `consume` runs, after checking that exactly one of `handle`/`handleBatch` is given. */
export type ConsumeHandler =
  | { kind: 'single'; handle: (message: IncomingMessage) => Promise<void> }
  | { kind: 'batch'; handleBatch: (messages: IncomingMessage[]) => Promise<void> };

export const consumeHandler = (options: ConsumeOptions): ConsumeHandler => {
  if (options.handle && options.handleBatch) throw new Error(`consume(${options.group}): give either handle or handleBatch, not both`);
  if (options.handle) return { kind: 'single', handle: options.handle };
  if (options.handleBatch) return { kind: 'batch', handleBatch: options.handleBatch };
  throw new Error(`consume(${options.group}): a handle or handleBatch function is required`);
};

/**
 * The event store port: what the command side, projectors and the relay need from an event log.
 * Adapters (embedded SQLite, EventStoreDB) only translate to and from this shape; the shared
 * contract suite (event-store.contract.ts) is what makes an adapter trustworthy.
 *
 * Positions and revisions are bigint end to end: EventStoreDB positions do not fit a double.
 * Revisions are 0-based per stream; `after` is exclusive (checkpoint semantics: "everything
 * after the last position I have seen"), omitted = from the very beginning.
 */
export type ExpectedRevision = 'no_stream' | 'stream_exists' | 'any' | bigint;

export type EventMetadata = {
  account_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  request_id: string | null;
  /** Who caused it: an api key id, `admin`, `system:<process>`. */
  actor: string | null;
  timestamp: string;
  schema_version: number;
};

export type NewEvent = {
  /** Stable id; retrying an append with the same ids and expectation is idempotent. */
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

export type RecordedEvent = NewEvent & {
  streamName: string;
  revision: bigint;
  position: bigint;
};

export type AppendResult = { nextRevision: bigint; position: bigint };

/** One stream's part of `appendAll`. */
export type StreamAppend = { streamName: string; events: NewEvent[]; expectedRevision?: ExpectedRevision };

export type ReadStreamOptions = {
  direction?: 'forwards' | 'backwards';
  /** Inclusive; forwards default 0, backwards default the last revision. */
  fromRevision?: bigint;
  maxCount?: number;
};

/** `after` is an exclusive lower bound in both directions; backwards reads start at the head. */
export type ReadAllOptions = { after?: bigint; maxCount?: number; direction?: 'forwards' | 'backwards' };

export type SubscriptionFilter = { streamPrefixes?: string[]; eventTypes?: string[] };

export type SubscribeOptions = {
  after?: bigint;
  filter?: SubscriptionFilter;
  /**
   * Called with each batch in order, awaited before the next (backpressure). `lastPosition` is the
   * position the subscription has read up to, which may be past the last event in a filtered batch:
   * store it as the checkpoint. A thrown error is reported and the same batch is retried.
   */
  onEvents: (events: RecordedEvent[], lastPosition: bigint) => Promise<void>;
  onError?: (error: unknown) => void;
  batchSize?: number;
};

export type Subscription = {
  stop: () => Promise<void>;
  /** Position handled so far. */
  readonly position: bigint;
};

export interface EventStore {
  append(streamName: string, events: NewEvent[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  /**
   * Appends to several streams, in order, each with its own expectation; a later one is appended
   * only once every earlier one has been (the first to fail is the error). The embedded store
   * makes them one transaction — all or none, in one commit — so a command that writes two
   * streams waits for one append instead of two; EventStoreDB appends them one after the other
   * (those before a failure stand), as two `append`s in a row would.
   */
  appendAll(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Which of these streams hold at least one event: one check for many streams (a batch's). */
  existingStreams(streamNames: readonly string[]): Promise<Set<string>>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribe(options: SubscribeOptions): Subscription;
  /** Position of the last event in the log, 0n when empty. */
  headPosition(): Promise<bigint>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  readonly streamName: string;
  readonly expected: ExpectedRevision;
  readonly actual: bigint | 'no_stream';

  constructor(streamName: string, expected: ExpectedRevision, actual: bigint | 'no_stream') {
    super(`wrong expected revision on ${streamName}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
    this.streamName = streamName;
    this.expected = expected;
    this.actual = actual;
  }
}

export const isWrongExpectedRevision = (error: unknown): error is WrongExpectedRevisionError =>
  error instanceof WrongExpectedRevisionError;

export const matchesFilter = (event: { streamName: string; type: string }, filter?: SubscriptionFilter): boolean => {
  if (!filter) return true;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((prefix) => event.streamName.startsWith(prefix))) return false;
  if (filter.eventTypes && !filter.eventTypes.includes(event.type)) return false;
  return true;
};

/** The category of a stream: `vote-123` → `vote`. */
export const streamCategory = (streamName: string): string => {
  const dash = streamName.indexOf('-');
  return dash === -1 ? streamName : streamName.slice(0, dash);
};

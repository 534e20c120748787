import type { Logger } from 'pino';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';

/** What a processor is given: the event store to append its results, a logger, and the blob store where a process has one. */
export type ProcessorDeps = { eventStore: EventStore; logger: Logger; blobs?: BlobStore };

/**
 * A processor reacts to events from the bus (validation, labelling, analyses) and appends its
 * results as new events. It must be idempotent: the bus delivers at least once.
 */
export type Processor = {
  /** Also its consumer group: every processor sees every event of its topics. */
  name: string;
  topics: string[];
  handle: (event: RecordedEvent, deps: ProcessorDeps) => Promise<void>;
};

import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { VisionModels } from '../infrastructure/vision/port.ts';

/** Services some processors need besides the event store; a processor lists what it requires. */
export type ProcessorServices = { blobs?: BlobStore; readStore?: ReadStore; vision?: VisionModels };
export type ProcessorDeps = ProcessorServices & { eventStore: EventStore; logger: Logger };

/**
 * A processor reacts to events from the bus (validation, labelling, analyses) and appends its
 * results as new events. It must be idempotent: the bus delivers at least once.
 */
export type Processor = {
  /** Also its consumer group: every processor sees every event of its topics. */
  name: string;
  topics: string[];
  handle: (event: RecordedEvent, deps: ProcessorDeps) => Promise<void>;
  /** Services without which it does not start (logged): e.g. the image pipeline without `vision`. */
  requires?: (keyof ProcessorServices)[];
};

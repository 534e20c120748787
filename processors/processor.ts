import type { Logger } from 'pino';
import type { Event } from '../domain/decider.ts';
import type { StreamEvents } from '../domain/stream-events.ts';
import { topicFor } from '../infrastructure/bus/envelope.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';
import { isFromAny, type RecordedOf } from '../infrastructure/event-store/recorded.ts';
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

/**
 * What a processor file declares: the aggregates whose events it reacts to (`streams`, their event
 * decoders from domain/; their bus topics are its topics) and a handler that receives those
 * aggregates' events, typed. An event whose type none of them writes is passed over.
 */
export type ProcessorDefinition<S extends readonly StreamEvents<Event>[]> = Omit<Processor, 'topics' | 'handle'> & {
  streams: S;
  handle: (event: RecordedOf<S>, deps: ProcessorDeps) => Promise<void>;
};

export const defineProcessor = <const S extends readonly StreamEvents<Event>[]>({ streams, handle, ...rest }: ProcessorDefinition<S>): Processor => ({
  ...rest,
  topics: streams.map((events) => topicFor(events.category)),
  async handle(event, deps) {
    if (isFromAny(streams, event)) await handle(event, deps);
  },
});

import type { Logger } from 'pino';
import type { Bus, Consumer } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { fromBusMessage } from '../infrastructure/bus/envelope.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import { petAnalysisProcessors } from './pet-analyses/index.ts';

/** Adapters some processors need besides the event store (the pet analyses read media blobs). */
export type ProcessorServices = { blobs?: BlobStore };

/**
 * A processor reacts to events from the bus (validation, labelling, analyses) and appends its
 * results as new events. It must be idempotent: the bus delivers at least once.
 */
export type Processor = {
  /** Also its consumer group: every processor sees every event of its topics. */
  name: string;
  topics: string[];
  handle: (event: RecordedEvent, deps: ProcessorServices & { eventStore: EventStore; logger: Logger }) => Promise<void>;
};

/** The processors of the service. Image validation/labelling and pet analyses join this list as they land. */
export const processors: Processor[] = [...petAnalysisProcessors];

export const startProcessors = async (
  bus: Bus,
  eventStore: EventStore,
  logger: Logger,
  list: readonly Processor[] = processors,
  services: ProcessorServices = {},
): Promise<{ stop: () => Promise<void> }> => {
  const consumers: Consumer[] = [];
  for (const processor of list) {
    consumers.push(
      await bus.consume({
        group: `processor.${processor.name}`,
        topics: processor.topics,
        handle: (message) => processor.handle(fromBusMessage(message), { ...services, eventStore, logger }),
        onError: (error, message) => logger.error({ err: error, processor: processor.name, offset: message.offset }, 'processor failed; will retry'),
      }),
    );
  }
  logger.info({ processors: list.map((processor) => processor.name) }, 'processors started');
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
};

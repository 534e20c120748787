import type { Logger } from 'pino';
import type { Bus, Consumer } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { fromBusMessage } from '../infrastructure/bus/envelope.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import { imageBlobCleanup } from './image-blob-cleanup.ts';
import type { Processor } from './processor.ts';

export type { Processor, ProcessorDeps } from './processor.ts';

/** The processors of the service. Image validation/labelling and pet analyses join this list as they land. */
export const processors: Processor[] = [imageBlobCleanup];

export const startProcessors = async (
  bus: Bus,
  eventStore: EventStore,
  logger: Logger,
  list: readonly Processor[] = processors,
  blobs?: BlobStore,
): Promise<{ stop: () => Promise<void> }> => {
  const consumers: Consumer[] = [];
  for (const processor of list) {
    consumers.push(
      await bus.consume({
        group: `processor.${processor.name}`,
        topics: processor.topics,
        handle: (message) => processor.handle(fromBusMessage(message), { eventStore, logger, blobs }),
        onError: (error, message) => logger.error({ err: error, processor: processor.name, offset: message.offset }, 'processor failed; will retry'),
      }),
    );
  }
  logger.info({ processors: list.map((processor) => processor.name) }, 'processors started');
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
};

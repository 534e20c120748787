import type { Logger } from 'pino';
import type { Bus, Consumer } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { fromBusMessage } from '../infrastructure/bus/envelope.ts';
import { imageProcessors } from './images/index.ts';
import { imageBlobCleanup } from './image-blob-cleanup.ts';
import { petAnalysisProcessors } from './pet-analyses/index.ts';
import { petPhotoReviewProcessor } from './pets/photo-review.ts';
import type { Processor, ProcessorServices } from './processor.ts';

export type { Processor, ProcessorDeps, ProcessorServices } from './processor.ts';

/** The processors of the service: the image pipeline, image file cleanup, pet photo review and pet analyses. */
export const processors: Processor[] = [...imageProcessors, imageBlobCleanup, petPhotoReviewProcessor, ...petAnalysisProcessors];

/** The consumer group of each processor (its name on the bus). */
export const processorGroups = (list: readonly Processor[] = processors): string[] => list.map((processor) => `processor.${processor.name}`);

export const startProcessors = async (
  bus: Bus,
  eventStore: EventStore,
  logger: Logger,
  list: readonly Processor[] = processors,
  services: ProcessorServices = {},
  /** `onFailure`: a handler failed (counted by the metrics; the message is retried). */
  hooks: { onFailure?: (processor: string) => void } = {},
): Promise<{ stop: () => Promise<void> }> => {
  const consumers: Consumer[] = [];
  const started: Processor[] = [];
  for (const processor of list) {
    const missing = (processor.requires ?? []).filter((service) => !services[service]);
    if (missing.length > 0) {
      logger.warn({ processor: processor.name, missing }, 'processor not started: a service it needs is not configured');
      continue;
    }
    started.push(processor);
    consumers.push(
      await bus.consume({
        group: processorGroups([processor])[0],
        topics: processor.topics,
        handle: (message) => processor.handle(fromBusMessage(message), { ...services, eventStore, logger }),
        onError: (error, message) => {
          hooks.onFailure?.(processor.name);
          logger.error({ err: error, processor: processor.name, offset: message.offset }, 'processor failed; will retry');
        },
        onCrash: (error) => logger.error({ err: error, processor: processor.name }, 'bus consumer crashed; replacing it'),
      }),
    );
  }
  logger.info({ processors: started.map((processor) => processor.name) }, 'processors started');
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
};

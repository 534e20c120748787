import type { Logger } from 'pino';
import type { Bus, Consumer } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { fromBusMessage } from '../infrastructure/bus/envelope.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';

/**
 * A processor reacts to events from the bus (validation, labelling, analyses) and appends its
 * results as new events. It must be idempotent: the bus delivers at least once.
 */
export type Processor = {
  /** Also its consumer group: every processor sees every event of its topics. */
  name: string;
  topics: string[];
  handle: (event: RecordedEvent, deps: { eventStore: EventStore; logger: Logger }) => Promise<void>;
};

/** The processors of the service. Image validation/labelling and pet analyses join this list as they land. */
export const processors: Processor[] = [];

/** The consumer group of each processor (its name on the bus). */
export const processorGroups = (list: readonly Processor[] = processors): string[] => list.map((processor) => `processor.${processor.name}`);

export const startProcessors = async (
  bus: Bus,
  eventStore: EventStore,
  logger: Logger,
  list: readonly Processor[] = processors,
  /** `onFailure`: a handler failed (counted by the metrics; the message is retried). */
  hooks: { onFailure?: (processor: string) => void } = {},
): Promise<{ stop: () => Promise<void> }> => {
  const consumers: Consumer[] = [];
  for (const processor of list) {
    consumers.push(
      await bus.consume({
        group: processorGroups([processor])[0],
        topics: processor.topics,
        handle: (message) => processor.handle(fromBusMessage(message), { eventStore, logger }),
        onError: (error, message) => {
          hooks.onFailure?.(processor.name);
          logger.error({ err: error, processor: processor.name, offset: message.offset }, 'processor failed; will retry');
        },
      }),
    );
  }
  logger.info({ processors: list.map((processor) => processor.name) }, 'processors started');
  return { stop: async () => void (await Promise.all(consumers.map((consumer) => consumer.stop()))) };
};

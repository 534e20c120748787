import type { Logger } from 'pino';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { Broker } from '../infrastructure/bus/port.ts';
import { RELAY_CHECKPOINT, toBusMessage } from '../infrastructure/bus/envelope.ts';
import { DISPATCHER_BOOKKEEPING_EVENTS } from '../domain/webhooks/delivery.ts';

export { RELAY_CHECKPOINT };

/**
 * The relay: a projector whose "read model" is the broker (Kafka), run only where a broker is
 * configured (the embedded bus is the event log itself). Every event goes to the topic of its
 * stream category, keyed by stream id; the checkpoint moves only after the bus acknowledged the
 * whole batch, so a crash republishes (at-least-once) and never skips. The webhook dispatcher's
 * bookkeeping (its attempts, DISPATCHER_BOOKKEEPING_EVENTS) stays off the bus: nothing consumes it.
 */
export const startRelay = async (eventStore: EventStore, readStore: ReadStore, bus: Broker, logger: Logger) => {
  const after = (await readStore.getCheckpoint(RELAY_CHECKPOINT)) ?? 0n;
  const subscription = eventStore.subscribe({
    after,
    onEvents: async (events, lastPosition) => {
      const relayed = events.filter((event) => !DISPATCHER_BOOKKEEPING_EVENTS.has(event.type));
      if (relayed.length > 0) await bus.publish(relayed.map(toBusMessage));
      await readStore.setCheckpoint(RELAY_CHECKPOINT, lastPosition);
    },
    onError: (error) => logger.error({ err: error }, 'relay failed to publish; retrying the batch'),
  });
  logger.info({ from: after.toString() }, 'relay started');
  return { stop: () => subscription.stop() };
};

import type { Logger } from 'pino';
import type { EventStore, Subscription } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { Projection } from './projection.ts';

const applyBatch = async (projection: Projection, store: ReadStore, events: Parameters<Projection['apply']>[0][]) => {
  for (const event of events) await projection.apply(event, store);
};

/**
 * Runs each projection on its own subscription from its own checkpoint. After each batch the
 * checkpoint is stored — after the writes, so a crash in between only replays writes the
 * position guards ignore.
 */
export const startProjections = async (
  eventStore: EventStore,
  readStore: ReadStore,
  list: readonly Projection[],
  logger: Logger,
): Promise<{ stop: () => Promise<void> }> => {
  const subscriptions: Subscription[] = [];
  for (const projection of list) {
    await projection.setup?.(readStore);
    const after = (await readStore.getCheckpoint(projection.name)) ?? 0n;
    subscriptions.push(
      eventStore.subscribe({
        after,
        filter: { streamPrefixes: projection.streamPrefixes },
        onEvents: async (events, lastPosition) => {
          await applyBatch(projection, readStore, events);
          await readStore.setCheckpoint(projection.name, lastPosition);
        },
        onError: (error) => logger.error({ err: error, projection: projection.name }, 'projection failed; retrying the batch'),
      }),
    );
    logger.info({ projection: projection.name, from: after.toString() }, 'projection started');
  }
  return {
    stop: async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    },
  };
};

/**
 * Applies every event from `after` up to the head of the log as it is now (rebuilds, tests).
 * Calls `onProgress` with the position reached and the head it is heading for.
 */
export const projectToHead = async (
  eventStore: EventStore,
  readStore: ReadStore,
  projection: Projection,
  options: { after?: bigint; batchSize?: number; onProgress?: (position: bigint, head: bigint) => void } = {},
): Promise<bigint> => {
  await projection.setup?.(readStore);
  const head = await eventStore.headPosition();
  let position = options.after ?? 0n;
  while (position < head) {
    const batch = await eventStore.readAll({ after: position, maxCount: options.batchSize ?? 1000 });
    if (batch.length === 0) break;
    await applyBatch(
      projection,
      readStore,
      batch.filter((event) => projection.streamPrefixes.some((prefix) => event.streamName.startsWith(prefix))),
    );
    position = batch[batch.length - 1].position;
    await readStore.setCheckpoint(projection.name, position);
    options.onProgress?.(position, head);
  }
  return position;
};

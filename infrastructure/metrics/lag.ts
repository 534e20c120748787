import type { EventStore } from '../event-store/port.ts';
import type { ReadStore } from '../read-store/port.ts';

export type CheckpointLag = {
  name: string;
  checkpoint: bigint;
  /** Events between the checkpoint and the head (counted up to 10,000; more reads as 10,000). */
  lagEvents: number;
  /** Age of the oldest event not yet handled, 0 when caught up. */
  lagSeconds: number;
};

const WINDOW = 10_000;

/**
 * How far each named checkpoint (projections, the relay) is behind the head: one read of the log
 * from the lowest checkpoint, at most 10,000 events, shared by all of them.
 */
export const checkpointLags = async (
  eventStore: Pick<EventStore, 'readAll'>,
  readStore: Pick<ReadStore, 'getCheckpoint'>,
  names: readonly string[],
  head: bigint,
  now = Date.now(),
): Promise<CheckpointLag[]> => {
  const checkpoints = await Promise.all(names.map(async (name) => ({ name, checkpoint: (await readStore.getCheckpoint(name)) ?? 0n })));
  const lowest = checkpoints.reduce((low, entry) => (entry.checkpoint < low ? entry.checkpoint : low), head);
  const window = lowest < head ? await eventStore.readAll({ after: lowest, maxCount: WINDOW }) : [];
  return checkpoints.map(({ name, checkpoint }) => {
    if (checkpoint >= head) return { name, checkpoint, lagEvents: 0, lagSeconds: 0 };
    const behind = window.filter((event) => event.position > checkpoint);
    const oldest = behind[0] ? Date.parse(behind[0].metadata.timestamp) : now;
    return { name, checkpoint, lagEvents: behind.length, lagSeconds: Math.max(0, (now - oldest) / 1000) };
  });
};

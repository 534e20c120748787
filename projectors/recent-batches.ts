/**
 * How far back before its last stored batch a runner applies events again when its store may have
 * lost writes. A server that loses acknowledged writes loses its last ones — mongo-java-server's
 * H2 store the last second, a standalone mongod its last ≈ 100 ms of unjournaled writes — in
 * whatever order its connections happened to take them, so the checkpoints it kept are no proof
 * that the documents written before them were kept too. Five seconds covers both with room.
 */
export const LOSS_WINDOW_MS = 5_000;

/** At most this many batches are remembered (a runner storing more within the window rewinds less far). */
const CAPACITY = 4_096;

/**
 * When each of a runner's recent batches was stored: the newest batch stored more than
 * `windowMs` before the last one is where to apply events again from. Memory stays bounded: only
 * the batches of the window and the one before it are kept.
 */
export const recentBatches = (start: bigint, { windowMs = LOSS_WINDOW_MS, now = Date.now }: { windowMs?: number; now?: () => number } = {}) => {
  const stored: { position: bigint; at: number }[] = [{ position: start, at: Number.NEGATIVE_INFINITY }];
  return {
    /** A batch ending at `position` was applied and its checkpoints handed to the store. */
    stored(position: bigint): void {
      const at = now();
      stored.push({ position, at });
      while (stored.length > 1 && stored[1].at < at - windowMs) stored.shift();
      if (stored.length > CAPACITY) stored.splice(0, stored.length - CAPACITY);
    },
    /** Apply the events after this position again: every batch stored within the window before the last one. */
    rewindPoint(): bigint {
      return stored[0].position;
    },
  };
};

import { performance } from 'node:perf_hooks';

/**
 * How long a reader catching up with a backlog of the log (a projection subscription, a bus
 * group) may hold the event loop before it lets requests, timers and I/O in.
 */
export const CATCH_UP_SLICE_MS = 25;

/**
 * Time slices for a reader that handles batch after batch while it is behind: `afterFullBatch()`
 * lets the event loop turn once the reader has held it for `sliceMs` (so a catch-up keeps most of
 * its speed, and nothing waits behind it longer than a slice); `waited()` after any wait of the
 * reader's own (the loop turned then). Between slices the log's per-turn read sharing is forgotten
 * and the read store's flush and eviction run, so a long catch-up does not hold what it read.
 */
export const catchUpSlices = (sliceMs = CATCH_UP_SLICE_MS) => {
  let since = performance.now();
  return {
    async afterFullBatch(): Promise<void> {
      if (performance.now() - since < sliceMs) return;
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    },
    waited(): void {
      since = performance.now();
    },
  };
};

/**
 * The process-wide limit on ffmpeg/ffprobe children: at most `concurrency` run at once (each may
 * use its memory limit, so the sum is bounded), the next ones wait their turn in arrival order. A
 * queue longer than `maxWaiting` refuses more work at once (the caller answers 503) instead of
 * holding requests and temporary files without end.
 */
export type MediaSlots = {
  /** Runs `work` once a slot is free; rejects with MediaBusyError when the queue is full. */
  run: <T>(work: () => Promise<T>) => Promise<T>;
  running: () => number;
  waiting: () => number;
};

export class MediaBusyError extends Error {
  constructor(waiting: number) {
    super(`${waiting} media jobs are already waiting`);
    this.name = 'MediaBusyError';
  }
}

export const createMediaSlots = (concurrency: number, maxWaiting: number): MediaSlots => {
  let running = 0;
  const queue: (() => void)[] = [];
  const release = () => {
    running -= 1;
    const next = queue.shift();
    if (next) {
      running += 1;
      next();
    }
  };
  return {
    run: async (work) => {
      if (running >= concurrency) {
        if (queue.length >= maxWaiting) throw new MediaBusyError(queue.length);
        await new Promise<void>((resolve) => queue.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await work();
      } finally {
        release();
      }
    },
    running: () => running,
    waiting: () => queue.length,
  };
};

/**
 * The in-memory timetable of delivery attempts: each delivery id is due at a time; due ones run
 * concurrently (up to `maxConcurrent`), so one slow endpoint never holds up another. The timetable
 * is only a cache of what the delivery streams say (the attempt re-reads its stream), rebuilt from
 * the read model of pending deliveries at start and by a periodic sweep.
 */
export type Scheduler = {
  /** Runs `id` at `atMs` (or at once); an earlier time wins over a later one. */
  enqueue: (id: string, atMs?: number) => void;
  readonly size: number;
  stop: () => Promise<void>;
};

export const createScheduler = (
  run: (id: string) => Promise<void>,
  options: { maxConcurrent: number; onError: (error: unknown, id: string) => void },
): Scheduler => {
  const due = new Map<string, number>();
  const inFlight = new Map<string, Promise<void>>();
  /** Asked for again while running: queued once the running attempt is over. */
  const again = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const arm = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = null;
    if (due.size === 0) return;
    const next = Math.min(...due.values());
    timer = setTimeout(tick, Math.max(0, Math.min(next - Date.now(), 1000)));
  };

  const start = (id: string) => {
    due.delete(id);
    const running = run(id)
      .catch((error) => options.onError(error, id))
      .finally(() => {
        inFlight.delete(id);
        const at = again.get(id);
        again.delete(id);
        if (at !== undefined) enqueue(id, at);
        else arm();
      });
    inFlight.set(id, running);
  };

  const tick = () => {
    timer = null;
    if (stopped) return;
    const now = Date.now();
    const ready = [...due].filter(([, at]) => at <= now).sort((a, b) => a[1] - b[1]);
    for (const [id] of ready) {
      if (inFlight.size >= options.maxConcurrent) break;
      start(id);
    }
    arm();
  };

  const enqueue = (id: string, atMs = Date.now()) => {
    if (stopped) return;
    if (inFlight.has(id)) {
      again.set(id, Math.min(again.get(id) ?? Infinity, atMs));
      return;
    }
    due.set(id, Math.min(due.get(id) ?? Infinity, atMs));
    arm();
  };

  return {
    enqueue,
    get size() {
      return due.size + inFlight.size;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      due.clear();
      again.clear();
      await Promise.allSettled([...inFlight.values()]);
    },
  };
};

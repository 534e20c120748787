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
  /**
   * Min-heap of [due time, id] so the next due attempt is found in O(log n) even with a large
   * backlog. Entries whose time no longer matches `due` are stale and skipped when they surface.
   */
  const heap: [number, string][] = [];
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const push = (entry: [number, string]) => {
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (heap[parent][0] <= heap[i][0]) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  };
  const pop = (): [number, string] | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && heap[left][0] < heap[smallest][0]) smallest = left;
        if (right < heap.length && heap[right][0] < heap[smallest][0]) smallest = right;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i], heap[smallest]];
        i = smallest;
      }
    }
    return top;
  };
  const isStale = ([at, id]: [number, string]) => due.get(id) !== at;
  /** The earliest live entry, dropping stale ones on the way. */
  const peek = (): [number, string] | undefined => {
    while (heap.length > 0 && isStale(heap[0])) pop();
    return heap[0];
  };

  const arm = () => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = null;
    const next = peek();
    if (!next) return;
    timer = setTimeout(tick, Math.max(0, Math.min(next[0] - Date.now(), 1000)));
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
    for (let next = peek(); next && next[0] <= now && inFlight.size < options.maxConcurrent; next = peek()) {
      pop();
      start(next[1]);
    }
    arm();
  };

  const enqueue = (id: string, atMs = Date.now()) => {
    if (stopped) return;
    if (inFlight.has(id)) {
      again.set(id, Math.min(again.get(id) ?? Infinity, atMs));
      return;
    }
    const at = Math.min(due.get(id) ?? Infinity, atMs);
    if (due.get(id) !== at) {
      due.set(id, at);
      push([at, id]);
    }
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
      heap.length = 0;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
};

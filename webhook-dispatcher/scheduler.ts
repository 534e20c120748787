/**
 * The in-memory timetable of delivery attempts, bounded and fair:
 * - a job is due at a time; due jobs wait in a queue per endpoint, and the queues take turns
 *   (round robin), each endpoint with at most `perEndpoint` attempts running and all of them
 *   together at most `total` — so a dead endpoint holds only its own share, never another's;
 * - it holds at most `maxJobs` jobs, `maxJobsPerEndpoint` of one endpoint: `enqueue` refuses
 *   more (false), and the caller leaves that delivery in the store, where the sweep finds it once
 *   there is room again. The timetable is a cache of the store, never the only copy of a delivery.
 */
export type Job = { readonly id: string; readonly webhookId: string };

export type SchedulerOptions = {
  total: number;
  perEndpoint: number;
  maxJobs: number;
  maxJobsPerEndpoint: number;
  onError: (error: unknown, job: Job) => void;
};

export type Scheduler<J extends Job> = {
  /** Runs `job` at `atMs` (or as soon as a slot is free); false when the timetable is full for it. */
  enqueue: (job: J, atMs?: number) => boolean;
  /** A job of this id is waiting or running. */
  has: (id: string) => boolean;
  /** Jobs held (waiting or running), all or one endpoint's. */
  size: (webhookId?: string) => number;
  /** How long the oldest running attempt of an endpoint has been running (0: none running). */
  busyForMs: (webhookId: string) => number;
  stop: () => Promise<void>;
};

type Lane<J> = { ready: J[]; head: number; running: Map<string, number>; held: number };

export const createScheduler = <J extends Job>(run: (job: J) => Promise<void>, options: SchedulerOptions): Scheduler<J> => {
  const held = new Map<string, J>();
  const lanes = new Map<string, Lane<J>>();
  /** Endpoints with due jobs, in turn order. */
  const turns: string[] = [];
  const inTurns = new Set<string>();
  const running = new Set<Promise<void>>();
  /** Jobs asked for again while running, with the time they are due. */
  const again = new Map<string, number>();
  let runningCount = 0;
  /** Min-heap of [due time, sequence, job] for jobs not due yet. */
  const heap: [number, number, J][] = [];
  let sequence = 0;
  let timer: NodeJS.Timeout | null = null;
  let timerAt = Infinity;
  let stopped = false;

  const before = (a: [number, number, J], b: [number, number, J]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  const push = (entry: [number, number, J]) => {
    heap.push(entry);
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i], heap[parent])) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  };
  const pop = () => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left], heap[smallest])) smallest = left;
        if (right < heap.length && before(heap[right], heap[smallest])) smallest = right;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i], heap[smallest]];
        i = smallest;
      }
    }
    return top;
  };

  const laneOf = (webhookId: string): Lane<J> => {
    let lane = lanes.get(webhookId);
    if (!lane) {
      lane = { ready: [], head: 0, running: new Map(), held: 0 };
      lanes.set(webhookId, lane);
    }
    return lane;
  };
  const release = (job: J) => {
    held.delete(job.id);
    const lane = lanes.get(job.webhookId);
    if (!lane) return;
    lane.held -= 1;
    if (lane.held === 0) lanes.delete(job.webhookId);
  };
  const makeReady = (job: J) => {
    const lane = laneOf(job.webhookId);
    lane.ready.push(job);
    if (!inTurns.has(job.webhookId)) {
      inTurns.add(job.webhookId);
      turns.push(job.webhookId);
    }
  };

  const start = (job: J, lane: Lane<J>) => {
    runningCount += 1;
    lane.running.set(job.id, Date.now());
    const done: Promise<void> = run(job)
      .catch((error) => options.onError(error, job))
      .finally(() => {
        runningCount -= 1;
        lane.running.delete(job.id);
        running.delete(done);
        // Asked for again while it ran (its next retry): back on the timetable, else done.
        const at = again.get(job.id);
        again.delete(job.id);
        if (at === undefined || stopped) release(job);
        else place(job, at);
        pump();
      });
    running.add(done);
  };

  const pump = () => {
    if (stopped) return;
    const now = Date.now();
    while (heap.length > 0 && heap[0][0] <= now) makeReady(pop()[2]);
    // Take turns: one job per endpoint per round, while slots are free.
    let idle = 0;
    while (runningCount < options.total && turns.length > 0 && idle < turns.length) {
      const webhookId = turns.shift() as string;
      const lane = lanes.get(webhookId);
      if (!lane || lane.head >= lane.ready.length) {
        inTurns.delete(webhookId);
        idle = 0;
        continue;
      }
      turns.push(webhookId);
      if (lane.running.size >= options.perEndpoint) {
        idle += 1;
        continue;
      }
      idle = 0;
      const job = lane.ready[lane.head];
      lane.head += 1;
      if (lane.head > 1024 && lane.head * 2 > lane.ready.length) {
        lane.ready = lane.ready.slice(lane.head);
        lane.head = 0;
      }
      if (lane.head >= lane.ready.length) {
        lane.ready = [];
        lane.head = 0;
      }
      start(job, lane);
    }
    arm();
  };

  const arm = () => {
    const next = heap.length > 0 ? heap[0][0] : Infinity;
    if (next === timerAt) return;
    if (timer) clearTimeout(timer);
    timer = null;
    timerAt = next;
    if (next === Infinity || stopped) return;
    timer = setTimeout(
      () => {
        timer = null;
        timerAt = Infinity;
        pump();
      },
      Math.max(0, Math.min(next - Date.now(), 2_000_000_000)),
    );
  };

  let pumpQueued = false;
  const schedulePump = () => {
    if (pumpQueued) return;
    pumpQueued = true;
    queueMicrotask(() => {
      pumpQueued = false;
      pump();
    });
  };

  const place = (job: J, atMs: number) => {
    if (atMs <= Date.now()) makeReady(job);
    else push([atMs, sequence++, job]);
  };

  const enqueue = (job: J, atMs = 0): boolean => {
    if (stopped) return false;
    const existing = held.get(job.id);
    if (existing) {
      // Running now: it goes back on the timetable once this run is over (a job held in another
      // state — waiting — runs once).
      if (existing === job && lanes.get(job.webhookId)?.running.has(job.id)) again.set(job.id, Math.min(again.get(job.id) ?? Infinity, atMs));
      return true;
    }
    const lane = lanes.get(job.webhookId);
    if (held.size >= options.maxJobs || (lane?.held ?? 0) >= options.maxJobsPerEndpoint) return false;
    held.set(job.id, job);
    laneOf(job.webhookId).held += 1;
    place(job, atMs);
    schedulePump();
    return true;
  };

  return {
    enqueue,
    has: (id) => held.has(id),
    size: (webhookId) => (webhookId === undefined ? held.size : (lanes.get(webhookId)?.held ?? 0)),
    busyForMs: (webhookId) => {
      const lane = lanes.get(webhookId);
      if (!lane || lane.running.size === 0) return 0;
      let oldest = Infinity;
      for (const startedAt of lane.running.values()) oldest = Math.min(oldest, startedAt);
      return Date.now() - oldest;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      heap.length = 0;
      turns.length = 0;
      await Promise.allSettled([...running]);
    },
  };
};

import type { EventStore } from './port.ts';

export type HeadCache = {
  /** The head as last read or noted (never a store read). */
  readonly position: bigint;
  /** The head as it was at least `ageMs` ago (the oldest sample when none is that old). */
  positionAgo: (ageMs: number) => bigint;
  /** When the last refresh succeeded (ms since epoch), null before the first. */
  readonly refreshedAt: number | null;
  readonly lastError: unknown;
  /** An append or a subscription saw this position: the head is at least here. */
  note: (position: bigint) => void;
  refresh: () => Promise<bigint>;
  stop: () => void;
};

const KEEP_MS = 60_000;

/**
 * The head of the log, cached: read once at start, then refreshed on a timer (once a second by
 * default) and pushed forward by appends and subscriptions (`note`). /health, /ready and metrics
 * read it from memory, so polling them costs no event-store read. Keeps a minute of samples so
 * readiness can ask "have the projections reached the head of a few seconds ago?".
 */
export const headCache = async (eventStore: Pick<EventStore, 'headPosition'>, options: { intervalMs?: number } = {}): Promise<HeadCache> => {
  let position = 0n;
  let refreshedAt: number | null = null;
  let lastError: unknown = null;
  const samples: { at: number; position: bigint }[] = [];
  const sample = () => {
    const now = Date.now();
    samples.push({ at: now, position });
    while (samples.length > 2 && samples[1].at < now - KEEP_MS) samples.shift();
  };
  const note = (seen: bigint) => {
    if (seen > position) position = seen;
  };
  const refresh = async () => {
    try {
      note(await eventStore.headPosition());
      refreshedAt = Date.now();
      lastError = null;
    } catch (error) {
      lastError = error;
    }
    sample();
    return position;
  };
  await refresh();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void refresh().finally(() => (running = false));
  }, options.intervalMs ?? 1_000);
  timer.unref();
  return {
    get position() {
      return position;
    },
    positionAgo(ageMs) {
      const cutoff = Date.now() - ageMs;
      let found = samples[0]?.position ?? position;
      for (const entry of samples) if (entry.at <= cutoff) found = entry.position;
      return found;
    },
    get refreshedAt() {
      return refreshedAt;
    },
    get lastError() {
      return lastError;
    },
    note,
    refresh,
    stop: () => clearInterval(timer),
  };
};

import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import autocannon from 'autocannon';
import { cpuSecondsOf } from './cpu.ts';
import { loadResultOf, type LoadResult } from './load.ts';

/** One request of a kind: made anew for each request sent (another key, another id). */
export type MixRequest = { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };

/** One kind of request of a mix. */
export type MixKind = {
  /** Short name in the figures (`GET /v1/breeds`). */
  name: string;
  /** Its share of the mix's requests (the shares of a mix add up to 1). */
  share: number;
  next: () => MixRequest;
};

/** What a kind got in the mix: answers, rate and latency (measured per request, see runMix). */
export type KindResult = { ok: number; okPerSecond: number; non2xx: number; latencyP50: number; latencyP99: number };

/** One bounded autocannon run of a kind alone, as fast as answered, every request made by `kind.next()`. */
export const runKind = async (url: string, kind: MixKind, options: { durationS: number; connections: number }): Promise<LoadResult> => {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...kind.next() }) }],
  });
  return loadResultOf(result, options.durationS);
};

const DECK_SIZE = 200;

/** The kinds dealt into a deck of DECK_SIZE requests in proportion to their shares, shuffled (the same order every run). */
export const deckOf = (kinds: MixKind[]): MixKind[] => {
  const deck = kinds.flatMap((kind) => Array.from({ length: Math.max(1, Math.round(kind.share * DECK_SIZE)) }, () => kind));
  let seed = 42;
  for (let i = deck.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const j = seed % (i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
};

/** A connection's context (autocannon's, one per connection): the kind of its request in flight and when it was made. */
type InFlight = { kind: string; sentAt: number };

const percentile = (sorted: number[], p: number): number => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

/**
 * The mix as real traffic sends it: the requests are dealt from a shuffled deck in which each kind
 * has its share (deckOf), one after the other to whichever connection is free next, as fast as the
 * service answers. So the proportions hold whatever each kind costs, a kind that stalls holds up
 * the connection it is on (as a client waiting for it would), and the mix's total is comparable
 * with the harmonic combination of the kinds alone. Latency per kind is timed from the moment a
 * request is made (right before it is written: one request in flight per connection) to its answer.
 */
export const runMix = async (
  url: string,
  kinds: MixKind[],
  options: { durationS: number; connections: number },
): Promise<{ byKind: Map<string, KindResult>; okPerSecond: number; errors: number; timeouts: number }> => {
  const stats = new Map(kinds.map((kind) => [kind.name, { ok: 0, non2xx: 0, latencies: [] as number[] }]));
  const deck = deckOf(kinds);
  let dealt = 0;
  const request = {
    setupRequest: (request: autocannon.Request, context: object) => {
      const kind = deck[dealt++ % deck.length];
      Object.assign(context as InFlight, { kind: kind.name, sentAt: performance.now() });
      return { ...request, ...kind.next() };
    },
    onResponse: (status: number, _body: string, context: object) => {
      const { kind, sentAt } = context as InFlight;
      const stat = stats.get(kind);
      if (!stat) return;
      stat.latencies.push(performance.now() - sentAt);
      if (status >= 200 && status < 300) stat.ok += 1;
      else stat.non2xx += 1;
    },
  };
  const result = await autocannon({ url, connections: options.connections, duration: options.durationS, timeout: 10, requests: [request] });
  const durationS = result.duration || options.durationS;
  const byKind = new Map<string, KindResult>();
  let ok = 0;
  for (const [name, stat] of stats) {
    const sorted = stat.latencies.sort((a, b) => a - b);
    ok += stat.ok;
    byKind.set(name, { ok: stat.ok, okPerSecond: stat.ok / durationS, non2xx: stat.non2xx, latencyP50: Math.round(percentile(sorted, 50)), latencyP99: Math.round(percentile(sorted, 99)) });
  }
  return { byKind, okPerSecond: ok / durationS, errors: result.errors, timeouts: result.timeouts };
};

/**
 * The rate a mix would reach if each kind cost the service what it costs alone and nothing were
 * lost by mixing them: 1 / Σ (share / rate alone) — the harmonic combination of the parts.
 */
export const harmonicRate = (kinds: MixKind[], alone: Map<string, number>): number => {
  // A kind that answered nothing alone makes the combination 0 (every ratio to it undefined).
  if (kinds.some((kind) => !((alone.get(kind.name) ?? 0) > 0))) return 0;
  return 1 / kinds.reduce((sum, kind) => sum + kind.share / (alone.get(kind.name) as number), 0);
};

/**
 * Waits (bounded) until a process is quiet — under `busyShare` of one core over a second — so
 * what one run left behind (projections catching up with a pre-load, an upload's analyses) is
 * not measured under the next. Answers the seconds waited, or null if it never quieted.
 */
export const settle = async (pid: number, options: { timeoutS: number; busyShare?: number }): Promise<number | null> => {
  const started = Date.now();
  const busyShare = options.busyShare ?? 0.15;
  while (Date.now() - started < options.timeoutS * 1000) {
    const before = cpuSecondsOf(pid);
    const at = Date.now();
    await delay(1000);
    const after = cpuSecondsOf(pid);
    if (before === null || after === null) return null;
    if ((after - before) / ((Date.now() - at) / 1000) < busyShare) return (Date.now() - started) / 1000;
  }
  return null;
};

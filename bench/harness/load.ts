import autocannon from 'autocannon';

export type LoadResult = {
  /** 2xx answers per second over the measured duration. */
  okPerSecond: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyP50: number;
  latencyP99: number;
  durationS: number;
};

export type LoadOptions = {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationS: number;
  /** Requests per second over all connections (fixed rate); omitted = as fast as answered. */
  overallRate?: number;
  /** Stop after this many requests instead of after durationS. */
  amount?: number;
};

/** One bounded autocannon run (it stops by itself after durationS). */
export const load = async (options: LoadOptions): Promise<LoadResult> => {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 16,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationS }),
    overallRate: options.overallRate,
    timeout: 10,
  });
  return loadResultOf(result, options.durationS);
};

/** An autocannon run as a LoadResult (its measured duration, else the one asked for). */
export const loadResultOf = (result: autocannon.Result, askedDurationS: number): LoadResult => {
  const durationS = result.duration || askedDurationS;
  return {
    okPerSecond: result['2xx'] / durationS,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    durationS,
  };
};

/** A short run first, so both sides are measured after the JIT has warmed up. */
export const warmUp = async (options: Omit<LoadOptions, 'durationS'>, seconds: number): Promise<void> => {
  if (seconds > 0) await load({ ...options, durationS: seconds });
};

/** Says what went wrong in a run, for the table's note (empty when nothing did). */
export const loadProblems = (result: LoadResult): string =>
  [
    result.non2xx ? `${result.non2xx} non-2xx` : '',
    result.errors ? `${result.errors} errors` : '',
    result.timeouts ? `${result.timeouts} timeouts` : '',
  ]
    .filter(Boolean)
    .join(', ');

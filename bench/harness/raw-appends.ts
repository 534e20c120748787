import { startChild } from './children.ts';

/**
 * Raw appends/s of the event store adapter the service uses (bench/children/raw-appends.ts in a
 * process of its own: one event to a new stream, `concurrency` loops).
 */
export const rawAppendsPerSecond = async (env: NodeJS.ProcessEnv, run: { durationS: number; warmupS: number; concurrency: number }): Promise<number> => {
  const raw = startChild('bench/children/raw-appends.ts', { env });
  try {
    raw.send({ type: 'run', ...run });
    const appends = await raw.message<{ appends: number; seconds: number }>('result', (run.durationS + run.warmupS) * 1000 + 60_000);
    return appends.appends / appends.seconds;
  } finally {
    await raw.stop();
  }
};

/** At most this many operations/s can go through steps that each take 1/rate of the same resources. */
export const serialCeiling = (...rates: number[]): number | null =>
  rates.every((rate) => rate > 0) ? 1 / rates.reduce((sum, rate) => sum + 1 / rate, 0) : null;

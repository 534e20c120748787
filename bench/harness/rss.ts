import { readFileSync } from 'node:fs';

/** Our own bound on the service's resident memory under any load (the issue sets none). */
export const RSS_BOUND_MIB = 512;

/** VmRSS and VmHWM (peak resident set since the process started) of a process, in MiB; null once it is gone. */
export const memoryOf = (pid: number): { rssMiB: number; hwmMiB: number } | null => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
  } catch {
    return null;
  }
};

/**
 * Samples a process's VmRSS every `intervalMs` until stopped and answers the highest value seen.
 * VmHWM alone cannot tell one load from the next (it only grows), so each item gets its own sampler.
 */
export const sampleRss = (pid: number, intervalMs = 50): { stop: () => number | null } => {
  let peak: number | null = null;
  const take = () => {
    const memory = memoryOf(pid);
    if (memory && Number.isFinite(memory.rssMiB)) peak = Math.max(peak ?? 0, memory.rssMiB);
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return peak;
    },
  };
};

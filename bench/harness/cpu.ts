import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used so far; null once it is gone. */
export const cpuSecondsOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
};

/**
 * The CPU a process spends per unit of work over a span: less disturbed by other load on the
 * machine than a rate is, so a fix shows even on a busy host. Call `per(count)` at the end.
 */
export const cpuMeter = (pid: number): { per: (count: number) => number | null } => {
  const start = cpuSecondsOf(pid);
  return {
    per: (count) => {
      const end = cpuSecondsOf(pid);
      return start === null || end === null || count <= 0 ? null : ((end - start) * 1000) / count;
    },
  };
};

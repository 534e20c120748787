import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createMediaSlots, type MediaSlots } from './media-slots.ts';

const MiB = 1024 * 1024;

/**
 * Limits of every ffmpeg/ffprobe child, from the environment once:
 * - MEDIA_CONCURRENCY (default 2): children running at once in this process; more wait in a queue
 *   of at most MEDIA_QUEUE (default 32), beyond which the work is refused (503);
 * - MEDIA_CHILD_MEMORY_MB (default 256): each child's data segment (RLIMIT_DATA: heap and private
 *   mappings), so the children of a process together use at most concurrency × this much.
 */
const setting = (name: string, fallback: number, min: number): number => {
  const value = Number(process.env[name]);
  return process.env[name]?.trim() && Number.isFinite(value) ? Math.max(min, Math.floor(value)) : fallback;
};

export const MediaLimits = {
  concurrency: setting('MEDIA_CONCURRENCY', 2, 1),
  maxWaiting: setting('MEDIA_QUEUE', 32, 0),
  memoryBytes: setting('MEDIA_CHILD_MEMORY_MB', 256, 64) * MiB,
};

export const mediaSlots: MediaSlots = createMediaSlots(MediaLimits.concurrency, MediaLimits.maxWaiting);

export type BoundedRun = {
  binary: string;
  args: string[];
  /** Wall-clock time before the child is killed (SIGKILL). The CPU-time rlimit is the same many seconds. */
  timeoutMs: number;
  /** Bytes of stdout after which the child is killed: the reader never holds more than this. */
  maxStdoutBytes: number;
  /**
   * Streams stdout to the caller instead of collecting it (still counted against maxStdoutBytes).
   * Answering 'enough' ends the run there: the child is killed and the run counts as a success.
   */
  onStdout?: (chunk: Buffer) => void | 'enough';
  memoryBytes?: number;
};

export type BoundedResult = {
  /** Exit code 0 and not stopped. */
  ok: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why this side killed the child, if it did ('enough': the caller had all it wanted; 'reader_error': the caller's onStdout threw). */
  stopped: 'timeout' | 'output_limit' | 'enough' | 'reader_error' | null;
  stdout: Buffer;
  /** The first 4 KiB of stderr. */
  stderr: string;
};

let prlimitPath: string | null | undefined;
const findPrlimit = (): string | null => {
  if (prlimitPath === undefined) {
    prlimitPath = null;
    for (const candidate of ['/usr/bin/prlimit', '/bin/prlimit']) {
      try {
        accessSync(candidate, constants.X_OK);
        prlimitPath = candidate;
        break;
      } catch {
        // not there
      }
    }
  }
  return prlimitPath;
};

/**
 * The command line that runs `binary` under rlimits: util-linux's prlimit sets them and execs the
 * binary (same pid, so a kill reaches it); without prlimit, /bin/sh's ulimit does the same.
 * Data segment (memory), CPU seconds, no file writes (output goes to a pipe only), no core dumps.
 */
export const limitedCommand = (binary: string, args: string[], limits: { memoryBytes: number; cpuSeconds: number }): { file: string; args: string[] } => {
  const prlimit = findPrlimit();
  if (prlimit) {
    return {
      file: prlimit,
      args: [`--data=${limits.memoryBytes}`, `--cpu=${limits.cpuSeconds}`, '--fsize=0', '--core=0', '--', binary, ...args],
    };
  }
  const kib = Math.floor(limits.memoryBytes / 1024);
  return {
    file: '/bin/sh',
    args: ['-c', `ulimit -d ${kib} && ulimit -t ${limits.cpuSeconds} && ulimit -f 0 && ulimit -c 0 && exec "$0" "$@"`, binary, ...args],
  };
};

/**
 * Runs one ffmpeg/ffprobe child with every bound: a slot of the process-wide limit (waiting in the
 * queue for one), rlimits (memory, CPU, no files), an environment of PATH alone (the service's
 * secrets — ADMIN_API_KEY, SECRETS_KEY, database URLs — never reach it), stdin closed, stdout capped
 * (the child is killed at the cap), and SIGKILL when the time is up. Resolves when the child has
 * exited, whatever happened; never rejects because of the child.
 */
export const runBounded = (run: BoundedRun): Promise<BoundedResult> =>
  mediaSlots.run(
    () =>
      new Promise<BoundedResult>((resolve) => {
        const command = limitedCommand(run.binary, run.args, {
          memoryBytes: run.memoryBytes ?? MediaLimits.memoryBytes,
          cpuSeconds: Math.max(1, Math.ceil(run.timeoutMs / 1000)),
        });
        const child = spawn(command.file, command.args, {
          env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const chunks: Buffer[] = [];
        let stdoutBytes = 0;
        let stderr = '';
        let stopped: BoundedResult['stopped'] = null;
        const kill = (reason: NonNullable<BoundedResult['stopped']>) => {
          if (stopped) return;
          stopped = reason;
          child.kill('SIGKILL');
        };
        const timer = setTimeout(() => kill('timeout'), run.timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => {
          if (stopped) return;
          stdoutBytes += chunk.length;
          if (stdoutBytes > run.maxStdoutBytes) {
            kill('output_limit');
            return;
          }
          if (!run.onStdout) {
            chunks.push(chunk);
            return;
          }
          try {
            if (run.onStdout(chunk) === 'enough') kill('enough');
          } catch {
            kill('reader_error');
          }
        });
        child.stderr.on('data', (chunk: Buffer) => {
          if (stderr.length < 4096) stderr += chunk.toString('utf8').slice(0, 4096 - stderr.length);
        });
        let settled = false;
        const finish = (exitCode: number | null, signal: NodeJS.Signals | null, error?: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ ok: stopped === 'enough' || (exitCode === 0 && !stopped), exitCode, signal, stopped, stdout: Buffer.concat(chunks), stderr: error ? `${error.message}\n${stderr}` : stderr });
        };
        // A binary that cannot be started fails at once ('close' may never follow 'error' then).
        child.on('error', (error) => {
          if (child.pid === undefined) finish(null, null, error);
        });
        child.on('close', (exitCode, signal) => finish(exitCode, signal));
      }),
  );

import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../infrastructure/config.ts';
import type { Bus } from '../infrastructure/bus/port.ts';
import { dispatcherGroups } from '../webhook-dispatcher/index.ts';
import type { DispatcherThreadData, DispatcherThreadMessage } from '../webhook-dispatcher/thread.ts';

const THREAD_MODULE = new URL('../webhook-dispatcher/thread.ts', import.meta.url).href;
/**
 * The thread's heap: what the dispatcher holds is bounded (10,000 deliveries, 500 events from the
 * bus, records on their way), ≈ 40–60 MiB at most; a bounded old generation makes V8 collect
 * instead of letting garbage pile up to several times that (the process's peak RSS).
 */
const THREAD_HEAP_MIB = 160;
/** How long a stopping dispatcher thread may take to finish its attempts and records. */
const STOP_TIMEOUT_MS = 30_000;

/**
 * A worker thread running a TypeScript module: the thread registers tsx itself (a worker does not
 * inherit the main thread's loader), with the main thread's Node options minus tsx's own
 * (profiling flags carry over).
 */
const tsWorker = (moduleUrl: string, workerData: unknown, resourceLimits?: ResourceLimits): Worker => {
  const tsx = import.meta.resolve('tsx/esm/api');
  const execArgv: string[] = [];
  for (let index = 0; index < process.execArgv.length; index++) {
    const arg = process.execArgv[index];
    if ((arg === '--import' || arg === '--require') && process.execArgv[index + 1]?.includes('tsx')) index += 1;
    else if (!arg.includes('tsx')) execArgv.push(arg);
  }
  const boot = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { eval: true, execArgv, workerData, resourceLimits });
};

/**
 * The all-in-one's webhook dispatcher in a thread of its own (webhook-dispatcher/thread.ts): the
 * delivery log and the other projections stay on the main thread, the dispatcher's work runs on the
 * other core. It opens its own connections to the same stores, as the standalone dispatcher does
 * on the same DATA_DIR (`bus` counts its consumer groups in this process's lag). Resolves once the dispatcher has started; a thread that ends unexpectedly
 * is started again (after 1 s, doubling up to 30 s).
 */
export const startDispatcherThread = async (config: Config, logger: Logger, bus: Bus): Promise<{ stop: () => Promise<void> }> => {
  // This process's metrics and console count the thread's groups (their offsets are shared).
  for (const { group, topics } of dispatcherGroups()) bus.watch?.(group, topics);
  const data: DispatcherThreadData = { config, logLevel: logger.level };
  let stopping = false;
  let worker: Worker;
  let failures = 0;
  let restartTimer: NodeJS.Timeout | null = null;

  const start = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let started = false;
      worker = tsWorker(THREAD_MODULE, data, { maxOldGenerationSizeMb: THREAD_HEAP_MIB });
      worker.on('message', (message: DispatcherThreadMessage) => {
        if (message.type === 'started') {
          started = true;
          failures = 0;
          resolve();
        } else if (message.type === 'failed') {
          reject(new Error(`the webhook dispatcher thread could not start: ${message.message}`));
        }
      });
      worker.on('error', (error) => {
        logger.error({ err: error }, 'webhook dispatcher thread failed');
        if (!started) reject(error);
      });
      worker.on('exit', (code) => {
        if (stopping || !started) return;
        failures += 1;
        const waitMs = Math.min(30_000, 1_000 * 2 ** Math.min(failures - 1, 5));
        logger.error({ code, restart_in_ms: waitMs }, 'webhook dispatcher thread ended; starting it again');
        restartTimer = setTimeout(() => {
          restartTimer = null;
          if (!stopping) start().catch((error) => logger.error({ err: error }, 'webhook dispatcher thread could not start again'));
        }, waitMs);
      });
    });

  await start();
  return {
    stop: async () => {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const current = worker;
      let timer: NodeJS.Timeout | undefined;
      const stopped = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_TIMEOUT_MS);
        current.on('message', (message: DispatcherThreadMessage) => {
          if (message.type === 'stopped') resolve();
        });
        current.once('exit', () => resolve());
      });
      current.postMessage({ type: 'stop' });
      await stopped;
      clearTimeout(timer);
      await current.terminate();
    },
  };
};

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { serviceEntry } from './build.ts';
import { freePort, startChild, type Child } from './children.ts';
import { requestJson } from './http.ts';
import { serviceNodeOptions } from '../../infrastructure/heap-policy.ts';

export type AdapterMode = 'embedded' | 'production';

export type RunningService = {
  url: string;
  pid: number;
  adminKey: string;
  dataDir: string;
  /** The adapter variables the service runs with (the raw-append baseline opens the same adapter). */
  adapterEnv: NodeJS.ProcessEnv;
  /** Stops the service; its DATA_DIR is removed unless `keepData` (to start again on the same data). */
  stop: (options?: { keepData?: boolean }) => Promise<void>;
};

export type ServiceOptions = {
  /** Extra environment (overrides the defaults below). */
  env?: Record<string, string>;
  /** Start on this DATA_DIR (kept from an earlier start) instead of a new one. */
  dataDir?: string;
  /** What runs as the service (default runtime/main.ts, the all-in-one). */
  script?: string;
  /** How long it may take to answer /ready (default BENCH_READY_TIMEOUT_S, else 600 s). */
  readyTimeoutS?: number;
};

/**
 * The adapter variables for a mode. Embedded clears them; production passes MONGO_URL (in a database
 * of this run's own), KAFKA_BROKERS (in a namespace of its own) and EVENTSTORE_URL when set.
 */
export const adapterEnvFor = (mode: AdapterMode, runId: string): NodeJS.ProcessEnv => {
  if (mode === 'embedded') return { MONGO_URL: '', KAFKA_BROKERS: '', KAFKA_NAMESPACE: '', EVENTSTORE_URL: '' };
  const mongo = process.env.MONGO_URL ? new URL(process.env.MONGO_URL) : null;
  if (mongo) mongo.pathname = `/bench_${runId}`;
  return {
    MONGO_URL: mongo?.toString() ?? '',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '',
    KAFKA_NAMESPACE: process.env.KAFKA_BROKERS ? `bench_${runId}` : '',
    EVENTSTORE_URL: process.env.EVENTSTORE_URL ?? '',
  };
};

const waitReady = async (url: string, child: Child, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.process.once('exit', () => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error('the service exited while starting (see its output above)');
    try {
      const response = await requestJson(`${url}/ready`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await delay(100);
  }
  throw new Error(`the service was not ready within ${timeoutMs} ms`);
};

/**
 * One key for every service this bench run starts: item 4 restarts the service on the same data,
 * and a new key would leave the endpoints' stored secrets undecryptable (every attempt failing).
 */
export const BENCH_SECRETS_KEY = process.env.SECRETS_KEY || randomBytes(32).toString('base64');

/**
 * The all-in-one service compiled and run by plain node, as `npm start` runs it (bench/harness/build.ts;
 * BENCH_FROM_SOURCES=1: through tsx from its sources), in a child process, on a temp
 * DATA_DIR and a free port, logging at warn, without the demo account, allowed to deliver webhooks
 * to loopback receivers, with a per-key rate limit no bench reaches. BENCH_CPU_PROF=1 writes a CPU profile of it to bench/results/profiles.
 */
export const startService = async (mode: AdapterMode, runId: string, options: ServiceOptions = {}): Promise<RunningService> => {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'bench-svc-'));
  const port = await freePort();
  const adminKey = `bench-admin-${randomBytes(12).toString('hex')}`;
  const adapterEnv = adapterEnvFor(mode, runId);
  const nodeArgs = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', '--cpu-prof-dir', 'bench/results/profiles'] : [];
  const child = startChild(serviceEntry(options.script ?? 'runtime/main.ts'), {
    nodeArgs,
    env: {
      ...adapterEnv,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_API_KEY: adminKey,
      // Required on shared adapters (one key for every process of a deployment); harmless on the embedded ones.
      SECRETS_KEY: BENCH_SECRETS_KEY,
      LOG_LEVEL: 'warn',
      // as `npm start` and the Docker image run it (sharp's advice for glibc; see Dockerfile)
      MALLOC_ARENA_MAX: '2',
      // the heap policy `npm start` and the Docker image start it with (infrastructure/heap-policy.ts);
      // a NODE_OPTIONS the bench runs with comes after it and wins (to measure another policy)
      NODE_OPTIONS: serviceNodeOptions(),
      DEMO_ACCOUNT: 'false',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // The limiter still runs on every request (its cost is measured), but never refuses one.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_PLANS: '',
      ...options.env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    // The first start on MongoDB projects the whole reference data set: give it time.
    await waitReady(url, child, (options.readyTimeoutS ?? Number(process.env.BENCH_READY_TIMEOUT_S ?? 600)) * 1000);
  } catch (error) {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    pid: child.pid,
    adminKey,
    dataDir,
    adapterEnv,
    stop: async ({ keepData = false } = {}) => {
      await child.stop(30_000);
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

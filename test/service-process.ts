import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { serviceNodeOptions } from '../infrastructure/heap-policy.ts';

/**
 * The all-in-one service as a real child process, for crash and log tests: `node --import tsx
 * runtime/main.ts` (its sources), or a compiled entry point run by plain node as `npm start` runs it.
 */
export type ServiceProcess = {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stdout and stderr so far. */
  output: () => string;
  /** Sends the signal and resolves when the process has exited. */
  stop: (signal: NodeJS.Signals) => Promise<void>;
};

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/**
 * How long a service with this environment may take to be ready: 30 s, or 150 s on Kafka, where a
 * process restarted after a kill -9 is ready only once its consumer groups have rebalanced, and the
 * killed member leaves them when its session times out (kafkajs: 30 s), more while other suites run.
 */
export const readyTimeoutOf = (env: Record<string, string>): number => (env.KAFKA_BROKERS ? 150_000 : 30_000);

/**
 * Starts the service on a free 127.0.0.1 port and resolves once /ready answers 200 (projections
 * caught up), within `readyTimeoutMs` (readyTimeoutOf(env) by default). `compiledEntry`: a compiled
 * entry point (test/compiled-build.ts) to run instead of the sources.
 */
export const startServiceProcess = async (env: Record<string, string>, options: { readyTimeoutMs?: number; compiledEntry?: string } = {}): Promise<ServiceProcess> => {
  const port = await freePort();
  const child = spawn(process.execPath, options.compiledEntry ? [options.compiledEntry] : ['--import', 'tsx', 'runtime/main.ts'], {
    cwd: process.cwd(),
    // Under the service's heap policy and malloc arenas, as `npm start` starts it (infrastructure/heap-policy.ts, package.json).
    env: { ...process.env, NODE_OPTIONS: serviceNodeOptions(), MALLOC_ARENA_MAX: '2', DEMO_ACCOUNT: 'false', LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const service: ServiceProcess = {
    child,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited(child);
    },
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? readyTimeoutOf(env));
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${service.url}/ready`)).status === 200) return service;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await service.stop('SIGKILL');
  throw new Error(`service did not become ready:\n${output}`);
};

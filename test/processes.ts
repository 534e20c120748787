import { spawn, type ChildProcess } from 'node:child_process';
import { serviceNodeOptions } from '../infrastructure/heap-policy.ts';
import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

export type ServiceProcess = {
  name: string;
  child: ChildProcess;
  output: () => string;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
};

/** Starts one of the service's entry points (`runtime/main.ts`, `projectors/main.ts`, …) as a real process. */
export const startProcess = (name: string, entry: string, env: NodeJS.ProcessEnv): ServiceProcess => {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    // Under the service's heap policy, as `npm run start:*` starts it (infrastructure/heap-policy.ts).
    env: { ...process.env, NODE_OPTIONS: serviceNodeOptions(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    output: () => output,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await Promise.race([exited, delay(10_000).then(() => child.kill('SIGKILL'))]);
      await exited;
    },
  };
};

/** Polls an HTTP URL until it answers 2xx (bounded). */
export const waitForHttp = async (url: string, timeoutMs = 30_000, processForLogs?: ServiceProcess): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (processForLogs && processForLogs.child.exitCode !== null) {
      throw new Error(`${processForLogs.name} exited: ${processForLogs.output()}`);
    }
    await delay(100);
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms${processForLogs ? `: ${processForLogs.output()}` : ''}`);
};

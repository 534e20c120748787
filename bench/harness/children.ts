import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A port free on 127.0.0.1 right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

export type Child = {
  pid: number;
  process: ChildProcess;
  /** The next IPC message whose `type` is the one asked for (rejects if the child exits first). */
  message: <T = Record<string, unknown>>(type: string, timeoutMs?: number) => Promise<T>;
  send: (message: Record<string, unknown>) => void;
  stop: (timeoutMs?: number) => Promise<number | null>;
};

/**
 * A TypeScript file run by `node --import tsx` (a compiled .js file: by plain node) in its own
 * process (so a load generator never shares an event loop with what it measures), with an IPC
 * channel for `{type, ...}` messages.
 */
export const startChild = (script: string, options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; args?: string[] } = {}): Child => {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, script, ...(options.args ?? [])], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: Record<string, unknown>[] = [];
  const waiters = new Set<() => void>();
  let exited: number | null | undefined;
  child.on('message', (message) => {
    inbox.push(message as Record<string, unknown>);
    for (const wake of waiters) wake();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      for (const wake of waiters) wake();
      resolve(code);
    }),
  );

  const message = <T>(type: string, timeoutMs = 120_000): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const index = inbox.findIndex((item) => item.type === type);
        if (index >= 0) {
          done();
          resolve(inbox.splice(index, 1)[0] as T);
        } else if (exited !== undefined) {
          done();
          reject(new Error(`${script} exited (${exited}) before sending '${type}'`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${script} sent no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    pid: child.pid as number,
    process: child,
    message,
    send: (payload) => {
      if (child.connected) child.send(payload);
    },
    stop: async (timeoutMs = 15_000) => {
      if (exited !== undefined) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
  };
};

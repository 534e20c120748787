import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * onShutdownOnceStarted in a real process: a SIGTERM that arrives while the process is still
 * starting waits for the start, then stops it with status 0.
 */
const run = async (startMs: number, startFails: boolean): Promise<{ code: number | null; signal: string | null; output: string }> => {
  const script = `
    import { onShutdownOnceStarted } from './infrastructure/shutdown.ts';
    const started = onShutdownOnceStarted(new Promise((resolve, reject) => setTimeout(() => {
      if (${startFails}) return reject(new Error('start failed'));
      console.log('started');
      resolve(async () => console.log('stopped'));
    }, ${startMs})));
    console.log('starting'); // (the parent's cue to send SIGTERM: the handlers are in place by now)
    await started;
    setInterval(() => undefined, 1000); // keeps running, like a server
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (output === 'starting\n') child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output })));
};

describe('onShutdownOnceStarted', () => {
  it('a SIGTERM during start-up stops the process once started, with status 0', async () => {
    const { code, signal, output } = await run(1_000, false);
    expect(signal).toBeNull();
    expect(code).toBe(0);
    expect(output).toBe('starting\nstarted\nstopped\n');
  }, 30_000);

  it('a start that fails ends the process with status 1', async () => {
    const { code, output } = await run(300, true);
    expect(code).toBe(1);
    expect(output).toContain('start failed');
    expect(output).not.toContain('stopped');
  }, 30_000);
});

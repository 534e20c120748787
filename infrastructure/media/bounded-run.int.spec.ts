import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { limitedCommand, MediaLimits, runBounded } from './bounded-run.ts';
import { createMediaSlots, MediaBusyError } from './media-slots.ts';
import { ffmpegBinary, mediaBuild } from './ffmpeg-binaries.ts';

/** The bounds every ffmpeg/ffprobe child runs under, checked with ordinary programs standing in for ffmpeg. */
describe('runBounded', () => {
  it('gives the child PATH and nothing else of the environment', async () => {
    process.env.SECRETS_KEY_CANARY = 'must-not-leak';
    try {
      const result = await runBounded({ binary: '/usr/bin/env', args: [], timeoutMs: 10_000, maxStdoutBytes: 64 * 1024 });
      expect(result.ok).toBe(true);
      const names = result.stdout.toString('utf8').trim().split('\n').map((line) => line.split('=')[0]);
      expect(names).toEqual(['PATH']);
    } finally {
      delete process.env.SECRETS_KEY_CANARY;
    }
  });

  it('kills the child with SIGKILL when its time is up, and it is gone', async () => {
    const started = Date.now();
    const result = await runBounded({ binary: '/bin/sleep', args: ['30'], timeoutMs: 300, maxStdoutBytes: 1024 });
    expect(result).toMatchObject({ ok: false, stopped: 'timeout', signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills the child at the output cap; the reader never holds more', async () => {
    const result = await runBounded({ binary: '/usr/bin/yes', args: [], timeoutMs: 10_000, maxStdoutBytes: 256 * 1024 });
    expect(result.stopped).toBe('output_limit');
    expect(result.stdout.length).toBeLessThanOrEqual(256 * 1024);
  });

  it('stops the child when the reader has enough, as a success', async () => {
    let seen = 0;
    const result = await runBounded({ binary: '/usr/bin/yes', args: [], timeoutMs: 10_000, maxStdoutBytes: 1 << 30, onStdout: (chunk) => ((seen += chunk.length) > 100_000 ? 'enough' : undefined) });
    expect(result).toMatchObject({ ok: true, stopped: 'enough' });
  });

  it('limits the child’s memory (data segment) and CPU time, and forbids writing files', () => {
    const command = limitedCommand('/usr/bin/ffmpeg', ['-version'], { memoryBytes: 128 * 1024 * 1024, cpuSeconds: 7 });
    const line = command.args.join(' ');
    if (command.file.endsWith('prlimit')) {
      expect(line).toContain(`--data=${128 * 1024 * 1024}`);
      expect(line).toContain('--cpu=7');
      expect(line).toContain('--fsize=0');
    } else {
      expect(line).toMatch(/ulimit -d 131072 .*ulimit -t 7 .*ulimit -f 0/);
    }
  });

  it('an allocation past the memory limit fails inside the child', async (context) => {
    if (!existsSync('/usr/bin/python3')) context.skip('no python3 to allocate with');
    const result = await runBounded({
      binary: '/usr/bin/python3',
      args: ['-c', 'b = bytearray(400 * 1024 * 1024); print(len(b))'],
      timeoutMs: 20_000,
      maxStdoutBytes: 1024,
      memoryBytes: 128 * 1024 * 1024,
    });
    expect(result.ok).toBe(false);
    expect(result.stderr).toMatch(/MemoryError/);
  });

  it('runs ffmpeg of the build it names, reported with its version', async () => {
    const build = await mediaBuild();
    expect(build.ffmpeg.path).toBe(ffmpegBinary().path);
    expect(build.ffmpeg.version).not.toBe('unknown');
    // Debian's where it is installed (CI and the images install it); the npm build only as a fallback.
    if (existsSync('/usr/bin/ffmpeg') && !process.env.FFMPEG_PATH) expect(build.ffmpeg).toMatchObject({ source: 'system', path: '/usr/bin/ffmpeg' });
    expect(MediaLimits.concurrency).toBeGreaterThanOrEqual(1);
  });
});

describe('media slots', () => {
  it('runs at most `concurrency` jobs at once, the others in arrival order, and refuses past the queue', async () => {
    const slots = createMediaSlots(2, 3);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const job = (id: number) => async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      order.push(id);
      running -= 1;
      return id;
    };
    const accepted = [1, 2, 3, 4, 5].map((id) => slots.run(job(id)));
    expect(slots.running()).toBe(2);
    expect(slots.waiting()).toBe(3);
    await expect(slots.run(job(6))).rejects.toBeInstanceOf(MediaBusyError);
    expect(await Promise.all(accepted)).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    expect(order.slice(2)).toEqual([3, 4, 5]);
    expect(slots.running() + slots.waiting()).toBe(0);
  });

  it('frees the slot when a job fails', async () => {
    const slots = createMediaSlots(1, 1);
    await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await slots.run(async () => 'next')).toBe('next');
  });
});

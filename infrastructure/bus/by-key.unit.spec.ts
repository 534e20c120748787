import { describe, expect, it } from 'vitest';
import { byKey } from './by-key.ts';
import type { IncomingMessage } from './port.ts';

const message = (key: string, value: string, offset: number): IncomingMessage => ({ topic: 't', key, value, offset: String(offset) });

/** `count` messages spread round-robin over `keys` keys, values `key:index-within-key`. */
const batchOf = (count: number, keys: number): IncomingMessage[] =>
  Array.from({ length: count }, (_, i) => message(`k${i % keys}`, `k${i % keys}:${Math.floor(i / keys)}`, i));

const tick = (ms = 0) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('byKey', () => {
  it('handles every message once, each key in bus order, even when later keys finish first', async () => {
    const seen = new Map<string, string[]>();
    const handle = byKey(async (m) => {
      await tick(Math.floor(Math.random() * 3));
      seen.set(m.key, [...(seen.get(m.key) ?? []), m.value]);
    });
    await handle(batchOf(60, 7));
    expect([...seen.values()].flat()).toHaveLength(60);
    for (const [key, values] of seen) expect(values).toEqual(values.map((_, i) => `${key}:${i}`));
  });

  it('starts the next message of a key only after the previous one resolved', async () => {
    const running = new Set<string>();
    let overlaps = 0;
    const handle = byKey(async (m) => {
      if (running.has(m.key)) overlaps += 1;
      running.add(m.key);
      await tick(1);
      running.delete(m.key);
    });
    await handle(batchOf(30, 3));
    expect(overlaps).toBe(0);
  });

  it('works on different keys concurrently, up to the bound', async () => {
    let active = 0;
    let peak = 0;
    const make = (concurrency?: number) =>
      byKey(
        async () => {
          active += 1;
          peak = Math.max(peak, active);
          await tick(5);
          active -= 1;
        },
        concurrency === undefined ? {} : { concurrency },
      );

    await make(4)(batchOf(40, 10));
    expect(peak).toBe(4);

    peak = 0;
    await make()(batchOf(20, 20));
    expect(peak).toBe(20);

    peak = 0;
    await make()(batchOf(10, 1));
    expect(peak).toBe(1);
  });

  it('rejects with the failure after letting running handlers settle, and does not overtake the failed message', async () => {
    const done: string[] = [];
    const failure = new Error('boom');
    const handle = byKey(async (m) => {
      if (m.value === 'k0:1') throw failure;
      await tick(m.key === 'k1' ? 20 : 0);
      done.push(m.value);
    });
    const batch = [message('k0', 'k0:0', 0), message('k1', 'k1:0', 1), message('k0', 'k0:1', 2), message('k0', 'k0:2', 3)];
    await expect(handle(batch)).rejects.toBe(failure);
    // k1's slow handler was already running: it settled before the rejection.
    expect(done).toContain('k1:0');
    // The failed key's later message was never started.
    expect(done).not.toContain('k0:2');
  });

  it('handles an empty batch and refuses a useless concurrency', async () => {
    await expect(byKey(async () => {})([])).resolves.toBeUndefined();
    expect(() => byKey(async () => {}, { concurrency: 0 })).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { coalescedRaises, freshReads } from './coalesce.ts';

/** A fake remote call: it answers what was true when it started, once released; it records what it was asked. */
const gate = <A, V>(answer: (arg: A) => V) => {
  const calls: { key: string; arg: A; release: () => void; fail: (error: Error) => void }[] = [];
  const call = (key: string, arg: A) =>
    new Promise<V>((resolve, reject) => {
      const value = answer(arg);
      calls.push({ key, arg, release: () => resolve(value), fail: reject });
    });
  return { calls, call };
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescedRaises', () => {
  it('given a write under way, when more arrive, then they go as one write of the highest value', async () => {
    const remote = gate<bigint, void>(() => undefined);
    const raise = coalescedRaises(remote.call);
    const done: string[] = [];
    const first = raise('acc', 5n).then(() => done.push('5'));
    const later = [7n, 12n, 9n].map((value) => raise('acc', value).then(() => done.push(String(value))));
    await tick();
    expect(remote.calls.map((c) => c.arg)).toEqual([5n]);
    remote.calls[0].release();
    await first;
    await tick();
    expect(done).toEqual(['5']); // the queued ones wait for their own write
    expect(remote.calls.map((c) => c.arg)).toEqual([5n, 12n]);
    remote.calls[1].release();
    await Promise.all(later);
    expect(done.sort()).toEqual(['12', '5', '7', '9']);
    expect(remote.calls).toHaveLength(2);
  });

  it('keeps keys apart and passes a failed write on to every caller it carried', async () => {
    const remote = gate<bigint, void>(() => undefined);
    const raise = coalescedRaises(remote.call);
    const a = raise('a', 1n);
    const b = raise('b', 2n);
    await tick();
    expect(remote.calls.map((c) => [c.key, c.arg])).toEqual([
      ['a', 1n],
      ['b', 2n],
    ]);
    const queued = [raise('a', 3n), raise('a', 4n)];
    remote.calls[0].release();
    remote.calls[1].release();
    await Promise.all([a, b]);
    await tick();
    remote.calls[2].fail(new Error('server gone'));
    for (const result of queued) await expect(result).rejects.toThrow('server gone');
    // The key works again afterwards.
    const again = raise('a', 5n);
    await tick();
    remote.calls[3].release();
    await again;
    expect(remote.calls.map((c) => c.arg)).toEqual([1n, 2n, 4n, 5n]);
  });
});

describe('freshReads', () => {
  it('never answers a caller from a read that started before it asked', async () => {
    let stored = 1;
    const remote = gate<null, number>(() => stored);
    const read = freshReads((key: string) => remote.call(key, null));
    const early = read('acc');
    await tick();
    stored = 2; // written while the first read is on its way, before the next callers ask
    const late = [read('acc'), read('acc'), read('acc')];
    remote.calls[0].release();
    expect(await early).toBe(1);
    await tick();
    expect(remote.calls).toHaveLength(2);
    remote.calls[1].release();
    expect(await Promise.all(late)).toEqual([2, 2, 2]);
  });

  it('reads at once when nothing is under way', async () => {
    const remote = gate<null, string>(() => 'value');
    const read = freshReads((key: string) => remote.call(key, null));
    const first = read('k');
    remote.calls[0].release();
    expect(await first).toBe('value');
    await tick();
    const second = read('k');
    expect(remote.calls).toHaveLength(2);
    remote.calls[1].release();
    expect(await second).toBe('value');
  });
});

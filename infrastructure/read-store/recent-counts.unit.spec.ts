import { describe, expect, it } from 'vitest';
import { recentCounts } from './recent-counts.ts';

/** A counter whose answers the test sets, counting how often it was asked. */
const counter = () => {
  const state = { n: 0, asked: 0 };
  return { state, count: async () => (state.asked++, state.n) };
};

describe('recentCounts', () => {
  it('shares a count for maxAgeMs, then counts again', async () => {
    let clock = 0;
    const recent = recentCounts(() => clock);
    const { state, count } = counter();
    state.n = 5;
    expect(await recent('k', { maxAgeMs: 1000, seen: null }, count)).toBe(5);
    state.n = 6;
    clock = 999;
    expect(await recent('k', { maxAgeMs: 1000, seen: null }, count)).toBe(5);
    expect(state.asked).toBe(1);
    clock = 1001;
    expect(await recent('k', { maxAgeMs: 1000, seen: null }, count)).toBe(6);
    expect(state.asked).toBe(2);
  });

  it('keeps counts of different keys apart', async () => {
    const recent = recentCounts(() => 0);
    expect(await recent('a', { maxAgeMs: 1000, seen: null }, async () => 1)).toBe(1);
    expect(await recent('b', { maxAgeMs: 1000, seen: null }, async () => 2)).toBe(2);
    expect(await recent('a', { maxAgeMs: 1000, seen: null }, async () => 3)).toBe(1);
  });

  it('lets callers asking while a count is under way wait for that one', async () => {
    const recent = recentCounts(() => 0);
    let release!: (n: number) => void;
    let asked = 0;
    const slow = () => (asked++, new Promise<number>((resolve) => (release = resolve)));
    const first = recent('k', { maxAgeMs: 1000, seen: null }, slow);
    const second = recent('k', { maxAgeMs: 1000, seen: null }, slow);
    release(42);
    expect(await Promise.all([first, second])).toEqual([42, 42]);
    expect(asked).toBe(1);
  });

  it('gives a caller that must see a write only a count begun once the projection had passed it', async () => {
    const recent = recentCounts(() => 0);
    const { state, count } = counter();
    state.n = 5;
    await recent('k', { maxAgeMs: 1000, seen: 10n }, count);
    state.n = 6;
    // the count began at 10: good for a caller whose write is at 10 or before, not after
    expect(await recent('k', { maxAgeMs: 1000, seen: 12n, atLeast: 10n }, count)).toBe(5);
    expect(await recent('k', { maxAgeMs: 1000, seen: 12n, atLeast: 11n }, count)).toBe(6);
    expect(state.asked).toBe(2);
    // the new count began at 12
    expect(await recent('k', { maxAgeMs: 1000, seen: 12n, atLeast: 12n }, count)).toBe(6);
    expect(state.asked).toBe(2);
  });

  it('never serves a count begun before the store knew any checkpoint to a caller that must see a write', async () => {
    const recent = recentCounts(() => 0);
    const { state, count } = counter();
    await recent('k', { maxAgeMs: 1000, seen: null }, count);
    await recent('k', { maxAgeMs: 1000, seen: 3n, atLeast: 1n }, count);
    expect(state.asked).toBe(2);
  });

  it('does not keep a count that failed', async () => {
    const recent = recentCounts(() => 0);
    await expect(recent('k', { maxAgeMs: 1000, seen: null }, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await recent('k', { maxAgeMs: 1000, seen: null }, async () => 7)).toBe(7);
  });
});

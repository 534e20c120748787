import { describe, expect, it } from 'vitest';
import { recentLoss } from './recent-loss.ts';

describe('recentLoss', () => {
  it('is true from the first time a moved count of lost writes is seen, for the grace period only', () => {
    let clock = 1_000;
    const store = { rollbacks: 3 };
    const lately = recentLoss(store, { graceMs: 10_000, now: () => clock });
    expect(lately()).toBe(false);
    clock += 60_000;
    store.rollbacks = 4;
    expect(lately()).toBe(true);
    clock += 9_999;
    expect(lately()).toBe(true);
    clock += 1;
    expect(lately()).toBe(false);
    expect(recentLoss({}, { now: () => clock })()).toBe(false);
  });
});

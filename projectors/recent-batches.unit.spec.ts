import { describe, expect, it } from 'vitest';
import { LOSS_WINDOW_MS, recentBatches } from './recent-batches.ts';

describe('recentBatches', () => {
  it('rewinds to the last batch stored more than the window before the last one', () => {
    let now = 1_000_000;
    const batches = recentBatches(10n, { now: () => now });
    expect(batches.rewindPoint()).toBe(10n);
    batches.stored(20n);
    now += 1_000;
    batches.stored(30n);
    // Every batch is within the window: back to where the runner started.
    expect(batches.rewindPoint()).toBe(10n);
    now += LOSS_WINDOW_MS + 1;
    batches.stored(40n);
    // 20 and 30 are now older than the window before 40: the newest of them is the point.
    expect(batches.rewindPoint()).toBe(30n);
    now += 500;
    batches.stored(50n);
    expect(batches.rewindPoint()).toBe(30n);
  });

  it('keeps only the window and the batch before it, however many batches went by', () => {
    let now = 0;
    const batches = recentBatches(0n, { windowMs: 100, now: () => now });
    for (let i = 1n; i <= 10_000n; i++) {
      now += 1;
      batches.stored(i);
    }
    // The last batch was stored at 10,000; the newest one before 9,900 is 9,899.
    expect(batches.rewindPoint()).toBe(9_899n);
  });
});

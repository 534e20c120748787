import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDeadlines } from './deadlines.ts';

describe('request deadlines on one timer', () => {
  afterEach(() => void vi.useRealTimers());

  it('aborts each request once its time is up, never before, and not one that was cleared', () => {
    vi.useFakeTimers();
    let clock = 0;
    const deadlines = createDeadlines(1000, 50, () => clock);
    const first = deadlines.start();
    clock = 300;
    const second = deadlines.start();
    const done = deadlines.start();
    const fired: string[] = [];
    first.addEventListener('abort', () => fired.push('first'));
    second.addEventListener('abort', () => fired.push('second'));
    const removed = () => fired.push('removed');
    second.addEventListener('abort', removed);
    second.removeEventListener('abort', removed);
    done.addEventListener('abort', () => fired.push('done'));
    done.clear();

    clock = 999;
    vi.advanceTimersByTime(50);
    expect(fired).toEqual([]);
    expect(first.aborted).toBe(false);
    clock = 1000;
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['first']);
    expect(first.aborted).toBe(true);
    expect(first.reason?.message).toBe('no answer within 1000 ms');
    expect(second.aborted).toBe(false);
    clock = 1300;
    vi.advanceTimersByTime(50);
    expect(fired).toEqual(['first', 'second']);
    expect(done.aborted).toBe(false);
    // Nothing live: the timer stops.
    expect(vi.getTimerCount()).toBe(0);
    deadlines.close();
  });
});

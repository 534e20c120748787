import { describe, expect, it } from 'vitest';
import { validate, version } from 'uuid';
import { newEventId, nextNumericId } from './ids.ts';

describe('event ids', () => {
  it('are UUIDv7, all different, and ordered by the millisecond they were drawn in', async () => {
    const first = Array.from({ length: 5000 }, () => newEventId());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = Array.from({ length: 5000 }, () => newEventId());
    const all = [...first, ...later];
    expect(all.every((id) => validate(id) && version(id) === 7)).toBe(true);
    expect(new Set(all).size).toBe(all.length);
    const newestFirst = first.reduce((max, id) => (id > max ? id : max));
    const oldestLater = later.reduce((min, id) => (id < min ? id : min));
    expect(oldestLater > newestFirst).toBe(true);
  });
});

describe('numeric ids', () => {
  it('are safe integers, all different, and grow with time', async () => {
    const first = Array.from({ length: 3000 }, () => nextNumericId());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = nextNumericId();
    expect(first.every(Number.isSafeInteger)).toBe(true);
    expect(new Set(first).size).toBe(first.length);
    expect(later).toBeGreaterThan(Math.max(...first));
  });
});

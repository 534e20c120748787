import { describe, expect, it } from 'vitest';
import { DUPLICATE_SIMILARITY, nearDuplicateOf } from './duplicates.ts';

const unit = (values: number[]) => {
  const norm = Math.hypot(...values);
  return values.map((v) => v / norm);
};

describe('near-duplicate uploads', () => {
  const original = unit([1, 0.5, 0.2, 0]);
  it('finds the most similar candidate at or above the threshold', () => {
    const close = unit([1, 0.5, 0.21, 0.01]);
    const closer = unit([1, 0.5, 0.2, 0.001]);
    expect(nearDuplicateOf(original, [{ id: 'close', vector: close }, { id: 'closer', vector: closer }])).toBe('closer');
  });

  it('is null when every candidate is under the threshold, or there is none', () => {
    const other = unit([0.2, 1, 0, 0.5]);
    expect(nearDuplicateOf(original, [{ id: 'other', vector: other }])).toBeNull();
    expect(nearDuplicateOf(original, [])).toBeNull();
  });

  it('uses the documented threshold by default, and counts a vector exactly at it', () => {
    const angle = Math.acos(DUPLICATE_SIMILARITY) * 0.999;
    const at = [Math.cos(angle), Math.sin(angle)];
    expect(nearDuplicateOf([1, 0], [{ id: 'at', vector: at }])).toBe('at');
    const beyond = Math.acos(DUPLICATE_SIMILARITY) * 1.01;
    expect(nearDuplicateOf([1, 0], [{ id: 'beyond', vector: [Math.cos(beyond), Math.sin(beyond)] }])).toBeNull();
  });

  it('ignores vectors of another length (another model)', () => {
    expect(nearDuplicateOf(original, [{ id: 'short', vector: [1, 0.5] }])).toBeNull();
  });
});

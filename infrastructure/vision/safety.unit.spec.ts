import { describe, expect, it } from 'vitest';
import { DEFAULT_SAFETY_THRESHOLD, safetyVerdict } from './safety.ts';

describe('safety verdict from open_nsfw scores', () => {
  it('is safe with no labels under the review floor', () => {
    const v = safetyVerdict({ sfw: 0.99, nsfw: 0.01 });
    expect(v).toEqual({ unsafe: false, scores: { sfw: 0.99, nsfw: 0.01 }, reasons: [], labels: [], threshold: DEFAULT_SAFETY_THRESHOLD });
  });

  it('labels a borderline image Suggestive but keeps it', () => {
    const v = safetyVerdict({ sfw: 0.55, nsfw: 0.45 });
    expect(v.unsafe).toBe(false);
    expect(v.labels).toEqual([{ Name: 'Suggestive', Confidence: 45, ParentName: '' }]);
  });

  it('is unsafe at the threshold, with a reason and an Explicit Nudity label', () => {
    const v = safetyVerdict({ sfw: 0.2, nsfw: 0.8 });
    expect(v.unsafe).toBe(true);
    expect(v.labels).toEqual([{ Name: 'Explicit Nudity', Confidence: 80, ParentName: '' }]);
    expect(v.reasons[0]).toMatch(/0\.800 >= 0\.8/);
  });

  it('honours another threshold', () => {
    expect(safetyVerdict({ sfw: 0.4, nsfw: 0.6 }, 0.5).unsafe).toBe(true);
    expect(safetyVerdict({ sfw: 0.4, nsfw: 0.6 }, 0.7).unsafe).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { rankSimilar } from './similar.ts';

const v = (...values: number[]) => Int8Array.from(values);

describe('similar images (brute force over int8 vectors)', () => {
  const query = v(100, 20, 0, 0);
  const candidates = [
    { id: 'far', vector: v(0, 0, 100, 20) },
    { id: 'same', vector: v(50, 10, 0, 0) },
    { id: 'near', vector: v(100, 30, 5, 0) },
    { id: 'middle', vector: v(60, 0, 60, 0) },
  ];

  it('ranks by cosine, nearest first, with the similarity', () => {
    const ranked = rankSimilar(query, candidates, 10);
    expect(ranked.map((r) => r.id)).toEqual(['same', 'near', 'middle', 'far']);
    expect(ranked[0].similarity).toBe(1);
    expect(ranked[3].similarity).toBeCloseTo(0, 1);
  });

  it('keeps the first `limit`, also when many candidates stream past', () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ id: `c${String(i).padStart(3, '0')}`, vector: v(100, i % 100, (i * 7) % 100, 0) }));
    const top = rankSimilar(query, many, 3);
    const all = rankSimilar(query, many, 500);
    expect(top).toEqual(all.slice(0, 3));
  });

  it('skips vectors of another length', () => {
    expect(rankSimilar(query, [{ id: 'short', vector: v(1, 2) }], 5)).toEqual([]);
  });
});

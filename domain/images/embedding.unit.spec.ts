import { describe, expect, it } from 'vitest';
import { cosine, decodeEmbedding, embeddingInt8, encodeEmbedding } from './embedding.ts';

/** A deterministic pseudo-random unit vector (features of a ReLU6 network are ≥ 0: so are these). */
const unitVector = (seed: number, dims = 1280): Float32Array => {
  const v = new Float32Array(dims);
  let s = seed;
  for (let i = 0; i < dims; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    v[i] = (s / 2147483648) ** 3;
  }
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};

describe('image embeddings (int8)', () => {
  it('stores 1,280 values in 1,280 bytes and decodes to nearly the same direction', () => {
    const v = unitVector(7);
    const e = encodeEmbedding(v, 'classifier 1', 'crop');
    expect(e).toMatchObject({ model: 'classifier 1', region: 'crop', dims: 1280, encoding: 'int8' });
    expect(embeddingInt8(e)).toHaveLength(1280);
    expect(e.data.length).toBe(Math.ceil(1280 / 3) * 4);
    const back = decodeEmbedding(e);
    expect(cosine(back, back)).toBeCloseTo(1, 5);
    expect(cosine(v, back)).toBeGreaterThan(0.999);
  });

  it('keeps the order of similarities', () => {
    const a = unitVector(1);
    const near = a.map((x, i) => x + (i % 7 === 0 ? 0.01 : 0));
    const far = unitVector(99);
    const [ea, enear, efar] = [a, near.map((x) => x / Math.hypot(...near)), far].map((v) => decodeEmbedding(encodeEmbedding(v, 'm', 'image')));
    expect(cosine(ea, enear)).toBeGreaterThan(cosine(ea, efar));
    expect(cosine(ea, enear)).toBeCloseTo(cosine(a, near.map((x) => x / Math.hypot(...near))), 2);
  });

  it('handles negative values, the zero vector, and refuses what is not a number or does not fit', () => {
    const mixed = Float32Array.from([0.6, -0.8, 0]);
    expect(Array.from(embeddingInt8(encodeEmbedding(mixed, 'm', 'image')))).toEqual([95, -127, 0]);
    expect(Array.from(decodeEmbedding(encodeEmbedding(new Float32Array(4), 'm', 'image')))).toEqual([0, 0, 0, 0]);
    expect(() => encodeEmbedding([1, Number.NaN], 'm', 'image')).toThrow(RangeError);
    expect(() => embeddingInt8({ ...encodeEmbedding(mixed, 'm', 'image'), dims: 4 })).toThrow(RangeError);
    expect(() => cosine([1], [1, 0])).toThrow(RangeError);
  });
});

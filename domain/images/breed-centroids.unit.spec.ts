import { describe, expect, it } from 'vitest';
import {
  addInto,
  breedVectorOf,
  centroidChanges,
  centroidKey,
  contributionOf,
  decodeSum,
  encodeSum,
  fixedPointOf,
  mergeCentroids,
  PUBLIC_SCOPE,
  suggestBreedsByCentroids,
  type BreedCentroid,
  type CentroidImage,
} from './breed-centroids.ts';
import { decodeEmbedding, encodeEmbedding } from './embedding.ts';

const DIMS = 64;
/** A deterministic unit vector near axis `axis` (features are ≥ 0), with some noise from `seed`. */
const vectorNear = (axis: number, seed: number): Float32Array => {
  const v = new Float32Array(DIMS);
  let s = seed;
  for (let i = 0; i < DIMS; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    v[i] = 0.15 * (s / 2147483648);
  }
  v[axis] += 1;
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};
const embed = (axis: number, seed: number) => encodeEmbedding(vectorNear(axis, seed), 'classifier 1', 'crop');

const image = (over: Partial<CentroidImage> = {}): CentroidImage => ({
  account_id: 'acct-a',
  species_id: '2',
  breed_ids: ['beagle'],
  public: false,
  parent_image_id: null,
  embedding: embed(0, 1),
  ...over,
});

describe('breed centroids: sums and counts', () => {
  it('adding and then subtracting images leaves exactly zero, in any order', () => {
    const vectors = [1, 2, 3, 4, 5].map((seed) => fixedPointOf(embed(seed % 3, seed)));
    const sum = new Float64Array(DIMS);
    for (const v of vectors) addInto(sum, v, 1);
    for (const v of [...vectors].reverse()) addInto(sum, v, -1);
    expect([...sum].every((x) => x === 0)).toBe(true);
  });

  it('keeps a sum through its stored form unchanged', () => {
    const sum = addInto(fixedPointOf(embed(1, 9)), fixedPointOf(embed(2, 8)), 1);
    expect([...decodeSum(encodeSum(sum))]).toEqual([...sum]);
  });

  it('sums fixed-point integers of the decoded unit vector', () => {
    const e = embed(3, 4);
    const fixed = fixedPointOf(e);
    expect([...fixed].every(Number.isInteger)).toBe(true);
    const unit = decodeEmbedding(e);
    expect(fixed[3] / 2 ** 16).toBeCloseTo(unit[3], 4);
  });
});

describe('breed centroids: what an image contributes', () => {
  it('counts an image with a species, breeds and an embedding, in its account while private', () => {
    expect(contributionOf(image({ breed_ids: ['beagle', 'beagle', 'boxer'] }))).toEqual({ scope: 'acct-a', species_id: '2', model: 'classifier 1', breed_ids: ['beagle', 'boxer'] });
    expect(contributionOf(image({ public: true }))?.scope).toBe(PUBLIC_SCOPE);
  });

  it('counts nothing without breeds, species or embedding, nor for an auto-crop child', () => {
    expect(contributionOf(image({ breed_ids: [] }))).toBeNull();
    expect(contributionOf(image({ species_id: null }))).toBeNull();
    expect(contributionOf(image({ embedding: null }))).toBeNull();
    expect(contributionOf(image({ parent_image_id: 'parent' }))).toBeNull();
  });

  it('a breed tagged adds to that breed only; untagged subtracts it', () => {
    const before = contributionOf(image());
    const after = contributionOf(image({ breed_ids: ['beagle', 'boxer'] }));
    expect(centroidChanges(before, after)).toEqual([{ key: centroidKey('acct-a', '2', 'boxer', 'classifier 1'), scope: 'acct-a', species_id: '2', breed_id: 'boxer', model: 'classifier 1', sign: 1 }]);
    expect(centroidChanges(after, before).map((c) => [c.breed_id, c.sign])).toEqual([['boxer', -1]]);
  });

  it('made public: leaves its account and joins the public centroids', () => {
    const changes = centroidChanges(contributionOf(image()), contributionOf(image({ public: true })));
    expect(changes.map((c) => [c.scope, c.breed_id, c.sign])).toEqual([
      ['acct-a', 'beagle', -1],
      ['public', 'beagle', 1],
    ]);
  });

  it('deleted: subtracts every breed; unchanged: nothing', () => {
    const c = contributionOf(image({ breed_ids: ['beagle', 'boxer'] }));
    expect(centroidChanges(c, null).map((x) => x.sign)).toEqual([-1, -1]);
    expect(centroidChanges(c, c)).toEqual([]);
  });
});

describe('breed suggestions from centroids', () => {
  const centroid = (breed: string, axis: number, seeds: number[]): BreedCentroid => {
    const sum = new Float64Array(DIMS);
    for (const seed of seeds) addInto(sum, fixedPointOf(embed(axis, seed)), 1);
    return { breed_id: breed, count: seeds.length, sum };
  };
  const allowed = new Set(['beagle', 'boxer', 'pug', 'akita']);

  it('merges the public and the caller\'s own centroids of a breed (sums and counts add)', () => {
    const merged = mergeCentroids([centroid('beagle', 0, [1, 2]), centroid('beagle', 0, [3]), centroid('boxer', 1, [4])]);
    expect(merged.map((c) => [c.breed_id, c.count])).toEqual([
      ['beagle', 3],
      ['boxer', 1],
    ]);
    expect([...merged[0].sum]).toEqual([...centroid('beagle', 0, [1, 2, 3]).sum]);
  });

  it('suggests the nearest centroid first, with confidences that sum to at most 1', () => {
    const centroids = [centroid('beagle', 0, [1, 2, 3]), centroid('boxer', 1, [4, 5, 6]), centroid('pug', 2, [7, 8])];
    const suggested = suggestBreedsByCentroids(decodeEmbedding(embed(1, 42)), centroids, new Map(), allowed);
    expect(suggested[0].id).toBe('boxer');
    expect(suggested[0].confidence).toBeGreaterThan(0.5);
    expect(suggested.reduce((a, s) => a + s.confidence, 0)).toBeLessThanOrEqual(1.001);
  });

  it('blends in the by-name map (a breed without catalogue photos can still be suggested) and keeps to the allowed breeds', () => {
    const centroids = [centroid('beagle', 0, [1, 2]), centroid('boxer', 1, [3, 4])];
    const suggested = suggestBreedsByCentroids(decodeEmbedding(embed(0, 5)), centroids, new Map([['akita', 0.9], ['siamese', 0.9]]), allowed, { byNameWeight: 0.3 });
    expect(suggested[0].id).toBe('beagle');
    expect(suggested.map((s) => s.id)).toContain('akita');
    expect(suggested.map((s) => s.id)).not.toContain('siamese');
  });

  it('without centroids, is the by-name map alone', () => {
    expect(suggestBreedsByCentroids(decodeEmbedding(embed(0, 5)), [], new Map([['pug', 0.6], ['akita', 0.2]]), allowed)).toEqual([
      { id: 'pug', confidence: 0.6 },
      { id: 'akita', confidence: 0.2 },
    ]);
  });
});

describe('the vector an image is placed by', () => {
  const crop = encodeEmbedding(vectorNear(0, 1), 'classifier 1', 'crop');
  const whole = encodeEmbedding(vectorNear(1, 2), 'classifier 1', 'image');
  it('is the whole image: image_embedding beside a crop, or the embedding when it is of the whole image', () => {
    expect(breedVectorOf({ embedding: crop, image_embedding: whole })).toBe(whole);
    expect(breedVectorOf({ embedding: whole })).toBe(whole);
  });
  it('is none for a crop embedding alone (labelled before whole-image vectors were recorded) or no embedding', () => {
    expect(breedVectorOf({ embedding: crop })).toBeNull();
    expect(breedVectorOf({})).toBeNull();
  });
});

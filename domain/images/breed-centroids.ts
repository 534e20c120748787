/**
 * Breed suggestions learnt from the catalogue's own photos: each breed's centroid is the mean of
 * the embeddings of the images whose breeds are known, per species and per scope — `public` (the
 * approved public images) or one account (that account's own images that are not public). A
 * caller's centroid of a breed is the public one and the caller's own merged (sums and counts
 * add), so a suggestion never draws on another account's private photos, and no image is counted
 * twice (a public image is only in the public scope).
 *
 * A centroid is kept as a sum and a count: adding an image, removing it (deleted, breed untagged)
 * or moving it between scopes (made public) is O(1) in the number of images. The sums are of
 * fixed-point integers (each decoded, L2-normalised value × 2^16, rounded), so adding and
 * subtracting is exact in float64: a centroid whose images have all gone is exactly zero, whatever
 * the order of the updates.
 *
 * Pure: no I/O (the projection keeps the sums, the labelling processor reads them).
 */
import { decodeEmbedding, type ImageEmbedding } from './embedding.ts';

/** Fixed-point scale of the sums (exact in float64 up to 2^53 / 2^16 ≈ 1.4 × 10^11 images per centroid). */
export const CENTROID_FIXED_POINT = 2 ** 16;
/** The scope of the approved public images; any other scope is an account id. */
export const PUBLIC_SCOPE = 'public';
/** How many breeds a suggestion lists at most, and the confidence under which one is left out. */
export const MAX_SUGGESTED_BREEDS = 5;
export const MIN_SUGGESTED_CONFIDENCE = 0.001;
/**
 * Blending (measured on the Oxford-IIIT Pet sample, `npm run eval:vision`): the centroids'
 * cosines become probabilities by a softmax at this temperature, and the by-name ImageNet map's
 * probability of a breed (0 for a breed without a class) is mixed in with this weight.
 */
export const CENTROID_TEMPERATURE = 0.05;
export const BY_NAME_WEIGHT = 0.05;

/**
 * The vector an image is placed by for its breed (and compared by for duplicates and similar
 * images): the whole image's features — `image_embedding` when `embedding` is of the animal's crop,
 * else `embedding` itself when it is of the whole image (no animal found). With the animal's
 * surroundings, the nearest centroid finds the breed more often than with the crop alone
 * (Oxford-IIIT Pet sample, 5 splits: 89.0 % top-1 against 86.5 %). Images labelled before the
 * whole image's features were recorded (a crop embedding alone) have none: crop and whole-image
 * vectors are not mixed.
 */
export const breedVectorOf = (labelled: { embedding?: ImageEmbedding | null; image_embedding?: ImageEmbedding | null }): ImageEmbedding | null =>
  labelled.image_embedding ?? (labelled.embedding?.region === 'image' ? labelled.embedding : null);

/** An embedding as the integer vector a centroid sum adds. */
export const fixedPointOf = (embedding: ImageEmbedding): Float64Array => {
  const unit = decodeEmbedding(embedding);
  const out = new Float64Array(unit.length);
  for (let i = 0; i < unit.length; i++) out[i] = Math.round(unit[i] * CENTROID_FIXED_POINT);
  return out;
};

/** `sum` += sign × `vector`, in place (both fixed-point). */
export const addInto = (sum: Float64Array, vector: ArrayLike<number>, sign: 1 | -1): Float64Array => {
  if (sum.length !== vector.length) throw new RangeError(`vectors of ${sum.length} and ${vector.length} values`);
  for (let i = 0; i < sum.length; i++) sum[i] += sign * vector[i];
  return sum;
};

/** A sum as stored (base64 of the float64 values: 10 KiB for 1,280 values). */
export const encodeSum = (sum: Float64Array): string => Buffer.from(sum.buffer, sum.byteOffset, sum.byteLength).toString('base64');
export const decodeSum = (text: string): Float64Array => {
  const bytes = Buffer.from(text, 'base64');
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return new Float64Array(copy.buffer);
};

/** What one image adds to the centroids: in one scope, of one species and model, to each of its breeds. */
export type CentroidContribution = { scope: string; species_id: string; model: string; breed_ids: string[] };

export type CentroidImage = {
  account_id: string;
  species_id: string | null;
  breed_ids: readonly string[];
  public: boolean;
  /** auto-crop children are not counted: their animal is their parent's main animal (or one its breeds may not describe) */
  parent_image_id: string | null;
  embedding: ImageEmbedding | null;
};

/** The contribution of an image as it stands; null when it adds nothing (no species, breeds or embedding). */
export const contributionOf = (image: CentroidImage): CentroidContribution | null => {
  if (!image.embedding || !image.species_id || image.breed_ids.length === 0 || image.parent_image_id !== null) return null;
  return { scope: image.public ? PUBLIC_SCOPE : image.account_id, species_id: image.species_id, model: image.embedding.model, breed_ids: [...new Set(image.breed_ids)] };
};

/** The key of one centroid (scope, species, breed, model). */
export const centroidKey = (scope: string, speciesId: string, breedId: string, model: string): string => `${scope}|${speciesId}|${breedId}|${model}`;

export type CentroidChange = { key: string; scope: string; species_id: string; breed_id: string; model: string; sign: 1 | -1 };

/**
 * The centroid updates that turn contribution `before` into `after` (the image's vector is
 * subtracted where it no longer counts and added where it now does; unchanged ones cancel). Each
 * centroid appears at most once.
 */
export const centroidChanges = (before: CentroidContribution | null, after: CentroidContribution | null): CentroidChange[] => {
  const changes = new Map<string, CentroidChange>();
  const apply = (contribution: CentroidContribution | null, sign: 1 | -1) => {
    for (const breedId of contribution?.breed_ids ?? []) {
      const c = contribution!;
      const key = centroidKey(c.scope, c.species_id, breedId, c.model);
      if (changes.has(key)) changes.delete(key);
      else changes.set(key, { key, scope: c.scope, species_id: c.species_id, breed_id: breedId, model: c.model, sign });
    }
  };
  apply(before, -1);
  apply(after, 1);
  return [...changes.values()];
};

export type BreedCentroid = { breed_id: string; count: number; sum: Float64Array };

/** The caller's centroids: those of its scopes (public + its own) merged per breed. */
export const mergeCentroids = (centroids: readonly BreedCentroid[]): BreedCentroid[] => {
  const merged = new Map<string, BreedCentroid>();
  for (const centroid of centroids) {
    if (centroid.count <= 0) continue;
    const known = merged.get(centroid.breed_id);
    if (!known) merged.set(centroid.breed_id, { breed_id: centroid.breed_id, count: centroid.count, sum: Float64Array.from(centroid.sum) });
    else {
      known.count += centroid.count;
      addInto(known.sum, centroid.sum, 1);
    }
  }
  return [...merged.values()];
};

export type SuggestedBreed = { id: string; confidence: number };

/**
 * Breeds for an image, best first, with confidences (0..1, summing to at most 1): a softmax over
 * the cosines between the image's vector and each breed's centroid (CENTROID_TEMPERATURE), blended
 * with the by-name ImageNet map's probabilities (BY_NAME_WEIGHT; breedNameScores). Without any
 * centroid it is the by-name map alone. Only `allowed` breeds (the species' breeds) are suggested;
 * at most MAX_SUGGESTED_BREEDS, none under MIN_SUGGESTED_CONFIDENCE.
 */
export const suggestBreedsByCentroids = (
  vector: ArrayLike<number> | null,
  centroids: readonly BreedCentroid[],
  byName: ReadonlyMap<string, number>,
  allowed: ReadonlySet<string>,
  options: { temperature?: number; byNameWeight?: number; max?: number; minConfidence?: number } = {},
): SuggestedBreed[] => {
  const temperature = options.temperature ?? CENTROID_TEMPERATURE;
  const max = options.max ?? MAX_SUGGESTED_BREEDS;
  const minConfidence = options.minConfidence ?? MIN_SUGGESTED_CONFIDENCE;
  const usable = vector ? centroids.filter((c) => c.count > 0 && allowed.has(c.breed_id) && c.sum.length === vector.length) : [];
  const weight = usable.length > 0 ? (options.byNameWeight ?? BY_NAME_WEIGHT) : 1;
  const scores = new Map<string, number>();
  if (usable.length > 0) {
    const cosines = usable.map((c) => {
      let dot = 0;
      let norm = 0;
      for (let i = 0; i < c.sum.length; i++) {
        dot += vector![i] * c.sum[i];
        norm += c.sum[i] * c.sum[i];
      }
      return norm > 0 ? dot / Math.sqrt(norm) : -1;
    });
    const top = Math.max(...cosines);
    const exps = cosines.map((cos) => Math.exp((cos - top) / temperature));
    const total = exps.reduce((a, b) => a + b, 0);
    usable.forEach((c, i) => scores.set(c.breed_id, (1 - weight) * (exps[i] / total)));
  }
  for (const [id, p] of byName) if (allowed.has(id)) scores.set(id, (scores.get(id) ?? 0) + weight * p);
  return [...scores]
    .map(([id, score]) => ({ id, confidence: Math.round(score * 1000) / 1000 }))
    .filter((s) => s.confidence >= minConfidence)
    .sort((a, b) => b.confidence - a.confidence || (a.id < b.id ? -1 : 1))
    .slice(0, max);
};

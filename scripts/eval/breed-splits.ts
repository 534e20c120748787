/**
 * Breed suggestions learnt from the catalogue, measured on the Oxford-IIIT Pet sample the way the
 * service makes them: for each split (seeded), 7 photos of each breed are the catalogue — their
 * recorded embeddings summed into per-breed centroids of the species they were labelled with, as
 * the breed-centroids projection sums them — and the other 3 are uploads whose suggestions come
 * from suggestBreedsByCentroids (blended with the by-name ImageNet map, breedNameScores) over the
 * breeds of the species they were labelled with, as the labelling processor makes them. The same
 * domain functions, in this process; only the read model is replaced by a Map.
 */
import { breedNameScores, type BreedName } from '../../domain/images/analysis.ts';
import {
  addInto,
  centroidChanges,
  contributionOf,
  fixedPointOf,
  mergeCentroids,
  suggestBreedsByCentroids,
  type BreedCentroid,
} from '../../domain/images/breed-centroids.ts';
import { decodeEmbedding } from '../../domain/images/embedding.ts';
import type { PhotoResult } from './oxford-pets.ts';

export const CATALOGUE_PER_BREED = 7;
export const DEFAULT_SPLITS = 5;

/** mulberry32: a small seeded generator, so the splits are the same on every run */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

export type SplitFigures = { split: number; heldOut: PhotoResult[]; top1: boolean[]; top5: boolean[] };
export type BreedSplitOptions = { splits?: number; temperature?: number; byNameWeight?: number };

const SPECIES_ID: Record<string, string> = { cat: '1', dog: '2' };

/** The catalogue/held-out splits: split s shuffles each breed's photos with seed s. */
export const splitsOf = (results: readonly PhotoResult[], splits: number): { catalogue: PhotoResult[]; heldOut: PhotoResult[] }[] =>
  Array.from({ length: splits }, (_, split) => {
    const random = seeded(1000 + split);
    const catalogue: PhotoResult[] = [];
    const heldOut: PhotoResult[] = [];
    const byBreed = new Map<string, PhotoResult[]>();
    for (const r of results) byBreed.set(r.breedId, [...(byBreed.get(r.breedId) ?? []), r]);
    for (const breedId of [...byBreed.keys()].sort()) {
      const photos = [...byBreed.get(breedId)!].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (let i = photos.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [photos[i], photos[j]] = [photos[j], photos[i]];
      }
      catalogue.push(...photos.slice(0, CATALOGUE_PER_BREED));
      heldOut.push(...photos.slice(CATALOGUE_PER_BREED));
    }
    return { catalogue, heldOut };
  });

export const evaluateBreedSplits = (results: readonly PhotoResult[], breeds: readonly BreedName[], options: BreedSplitOptions = {}): SplitFigures[] =>
  splitsOf(results, options.splits ?? DEFAULT_SPLITS).map(({ catalogue, heldOut }, split) => {
    // the projection's bookkeeping: every catalogue photo uploaded with its breed by one account
    const sums = new Map<string, BreedCentroid & { species_id: string }>();
    for (const photo of catalogue) {
      const contribution = contributionOf({ account_id: 'catalogue', species_id: photo.predicted, breed_ids: [photo.breedId], public: false, parent_image_id: null, embedding: photo.breedVector });
      const vector = fixedPointOf(photo.breedVector);
      for (const change of centroidChanges(null, contribution)) {
        const centroid = sums.get(change.key) ?? { breed_id: change.breed_id, species_id: change.species_id, count: 0, sum: new Float64Array(vector.length) };
        centroid.count += change.sign;
        addInto(centroid.sum, vector, change.sign);
        sums.set(change.key, centroid);
      }
    }
    const top1: boolean[] = [];
    const top5: boolean[] = [];
    for (const photo of heldOut) {
      const species = photo.predicted;
      const ofSpecies = breeds.filter((b) => b.species_id === species);
      const centroids = mergeCentroids([...sums.values()].filter((c) => c.species_id === species));
      const suggested = suggestBreedsByCentroids(
        decodeEmbedding(photo.breedVector),
        centroids,
        breedNameScores(photo.wholeTop, ofSpecies),
        new Set(ofSpecies.map((b) => b.id)),
        { temperature: options.temperature, byNameWeight: options.byNameWeight },
      ).map((s) => s.id);
      top1.push(species === SPECIES_ID[photo.species] && suggested[0] === photo.breedId);
      top5.push(species === SPECIES_ID[photo.species] && suggested.slice(0, 5).includes(photo.breedId));
    }
    return { split, heldOut, top1, top5 };
  });

/**
 * Near-duplicate uploads: an image whose vector (breedVectorOf: the whole image's features) is
 * within DUPLICATE_SIMILARITY cosine of one of the same account's earlier images is marked
 * `duplicate_of` that image (the most similar). Pure: no I/O.
 *
 * The threshold, measured: distinct photos of the Oxford-IIIT Pet sample (370 photos, 68,265
 * pairs, 37 breeds × 10 photos of similar animals) are at most 0.865 apart; a photo re-encoded
 * smaller and at a lower JPEG quality stays above 0.98 (`npm run eval:vision` photos, see the docs).
 */
import { cosine } from './embedding.ts';

export const DUPLICATE_SIMILARITY = 0.95;

export type VectorCandidate = { id: string; vector: ArrayLike<number> };

/** The id of the candidate most similar to `vector` at or above `threshold`, null when none is. */
export const nearDuplicateOf = (vector: ArrayLike<number>, candidates: readonly VectorCandidate[], threshold = DUPLICATE_SIMILARITY): string | null => {
  let best: string | null = null;
  let bestSimilarity = threshold;
  for (const candidate of candidates) {
    if (candidate.vector.length !== vector.length) continue;
    const similarity = cosine(vector, candidate.vector);
    if (similarity >= bestSimilarity) {
      best = candidate.id;
      bestSimilarity = similarity;
    }
  }
  return best;
};

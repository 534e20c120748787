/**
 * Similar images: brute-force cosine over int8 vectors (embeddingInt8), nearest first. Pure.
 * Cost: one pass of 1,280 multiply-adds per candidate (measured in the docs' performance notes).
 */
export type SimilarCandidate = { id: string; vector: Int8Array };
export type SimilarImage = { id: string; similarity: number };

const norm = (v: Int8Array): number => {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i] * v[i];
  return Math.sqrt(sum);
};

/** The `limit` candidates nearest `query` (cosine, rounded to 4 decimals), nearest first; ties by id. */
export const rankSimilar = (query: Int8Array, candidates: Iterable<SimilarCandidate>, limit: number): SimilarImage[] => {
  const q = norm(query);
  const found: SimilarImage[] = [];
  let floor = -Infinity;
  for (const candidate of candidates) {
    const v = candidate.vector;
    if (v.length !== query.length) continue;
    let dot = 0;
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      dot += query[i] * v[i];
      n += v[i] * v[i];
    }
    const similarity = q > 0 && n > 0 ? dot / (q * Math.sqrt(n)) : 0;
    if (found.length >= limit && similarity < floor) continue;
    found.push({ id: candidate.id, similarity });
    if (found.length > limit * 4) {
      found.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
      found.length = limit;
      floor = found[limit - 1].similarity;
    }
  }
  found.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
  return found.slice(0, limit).map(({ id, similarity }) => ({ id, similarity: Math.round(similarity * 10_000) / 10_000 }));
};

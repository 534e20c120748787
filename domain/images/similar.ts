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
    // four running sums: about a fifth faster than one in V8
    let d0 = 0, d1 = 0, d2 = 0, d3 = 0, n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    const whole = v.length - (v.length % 4);
    for (let i = 0; i < whole; i += 4) {
      const a = v[i], b = v[i + 1], c = v[i + 2], e = v[i + 3];
      d0 += query[i] * a; d1 += query[i + 1] * b; d2 += query[i + 2] * c; d3 += query[i + 3] * e;
      n0 += a * a; n1 += b * b; n2 += c * c; n3 += e * e;
    }
    for (let i = whole; i < v.length; i++) {
      d0 += query[i] * v[i];
      n0 += v[i] * v[i];
    }
    const dot = d0 + d1 + d2 + d3;
    const n = n0 + n1 + n2 + n3;
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

/**
 * Image embeddings as events carry them: the classifier's pooled feature vector (L2-normalised),
 * quantised to int8 with one scale per vector and written as base64 — 1,280 values in 1,280 bytes
 * (1,708 characters), so 100,000 images' vectors take ≈ 125 MiB decoded as int8. Pure: no I/O.
 * Quantisation keeps the cosine between a vector and its decoded copy above 0.999.
 */

export type ImageEmbedding = {
  /** the model that made it, with its version (a vector is only comparable with vectors of the same model) */
  model: string;
  /** what was embedded: the main animal's crop, or the whole image when no animal was found */
  region: 'crop' | 'image';
  dims: number;
  encoding: 'int8';
  /** value = int8 × scale */
  scale: number;
  /** the int8 values, base64 */
  data: string;
};

/** Quantises a vector (expected L2-normalised) to int8 with the scale max |v| / 127. */
export const encodeEmbedding = (vector: ArrayLike<number>, model: string, region: ImageEmbedding['region']): ImageEmbedding => {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]));
  if (!Number.isFinite(max)) throw new RangeError('an embedding holds a value that is not a finite number');
  const scale = max > 0 ? max / 127 : 1;
  const q = new Int8Array(vector.length);
  for (let i = 0; i < vector.length; i++) q[i] = Math.round(vector[i] / scale);
  return { model, region, dims: vector.length, encoding: 'int8', scale, data: Buffer.from(q.buffer, q.byteOffset, q.byteLength).toString('base64') };
};

/** The int8 values of an embedding (what an index keeps in memory), checked against its `dims`. */
export const embeddingInt8 = (embedding: ImageEmbedding): Int8Array => {
  const bytes = Buffer.from(embedding.data, 'base64');
  if (embedding.encoding !== 'int8' || bytes.length !== embedding.dims) throw new RangeError(`embedding of ${bytes.length} bytes, ${embedding.dims} expected`);
  return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
};

/** The embedding as floats, L2-normalised again (so dot products are cosines). */
export const decodeEmbedding = (embedding: ImageEmbedding): Float32Array => {
  const q = embeddingInt8(embedding);
  const out = new Float32Array(q.length);
  let norm = 0;
  for (let i = 0; i < q.length; i++) norm += q[i] * q[i];
  const k = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let i = 0; i < q.length; i++) out[i] = q[i] * k;
  return out;
};

/** Cosine similarity of two decoded (L2-normalised) embeddings of the same length. */
export const cosine = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  if (a.length !== b.length) throw new RangeError('embeddings of different lengths');
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
};

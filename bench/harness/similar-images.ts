import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Collections, type ImageDoc, type ImageVectorDoc } from '../../contracts/read-models.ts';
import { embeddingInt8, encodeEmbedding } from '../../domain/images/embedding.ts';
import { embeddedReadStore } from '../../infrastructure/read-store/embedded.ts';
import type { WriteOp } from '../../infrastructure/read-store/port.ts';
import { similarIndex } from '../../query-api/similar-index.ts';
import { percentile } from './stats.ts';

const DIMS = 1_280;
const ACCOUNTS = 1_000;
const CLUSTERS = 500;
const WRITE_BATCH = 2_000;

/** mulberry32, so every run measures the same set */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

export type SimilarMeasure = {
  images: number;
  buildS: number;
  /** the index's matrices */
  indexMiB: number;
  /** RSS this process grew by while building it (with the read store's page cache; collected first when run with --expose-gc) */
  rssGrowthMiB: number;
  /** wall time of visibleNearest (index brought up to date, searched, answers re-checked on the images read model) */
  p50Ms: number;
  p99Ms: number;
  /** this process's CPU per query */
  cpuMs: number;
  /** the same with species_id */
  speciesP99Ms: number;
  queries: number;
};

/**
 * The similar-images read path of the query API (query-api/similar-index.ts) on `images` images
 * of 1,000 accounts (30 % public unless `publicShare` says otherwise, two species), 1,280-value int8 embeddings drawn around 500
 * random centres, in an embedded (SQLite) read store on disk: the index built from it, then
 * `queries` queries with limit 10 by random accounts about an image each can see (a third with a
 * species). Not timed: the route's own-image lookup and the rendering of the ten images.
 */
/** What the similar-images index reads of an image (its owner and visibility): the bench stores no more. */
type ImageStub = Pick<ImageDoc, '_id' | 'id' | 'account_id' | 'public'>;

export const measureSimilarImages = async (options: { images: number; queries: number; publicShare?: number; log: (message: string) => void }): Promise<SimilarMeasure> => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-similar-'));
  const store = embeddedReadStore(join(dir, 'read.db'));
  try {
    const random = seeded(9);
    const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const centres = Array.from({ length: CLUSTERS }, () => Float32Array.from({ length: DIMS }, gaussian));
    const picked: { id: string; account: string; public: boolean; species: string; vector: Int8Array }[] = [];
    let position = 0n;
    for (let start = 0; start < options.images; start += WRITE_BATCH) {
      const images: WriteOp<ImageStub>[] = [];
      const vectors: WriteOp<ImageVectorDoc>[] = [];
      for (let i = start; i < Math.min(options.images, start + WRITE_BATCH); i++) {
        position += 1n;
        const id = `bench-similar-${String(i).padStart(7, '0')}`;
        const account = `account-${Math.floor(random() * ACCOUNTS)}`;
        const isPublic = random() < (options.publicShare ?? 0.3);
        const species = random() < 0.5 ? '1' : '2';
        const centre = centres[Math.floor(random() * CLUSTERS)];
        const v = new Float32Array(DIMS);
        let norm = 0;
        for (let d = 0; d < DIMS; d++) {
          v[d] = centre[d] + 0.8 * gaussian();
          norm += v[d] * v[d];
        }
        for (let d = 0; d < DIMS; d++) v[d] /= Math.sqrt(norm);
        const embedding = encodeEmbedding(v, 'bench-model', 'image');
        images.push({ type: 'upsert', doc: { _id: id, id, account_id: account, public: isPublic }, position });
        vectors.push({
          type: 'upsert',
          doc: { _id: id, account_id: account, species_id: species, breed_ids: [], public: isPublic, parent_image_id: null, embedding, labelled_position: Number(position), contribution: null, changed_position: Number(position) },
          position,
        });
        if (i % Math.max(1, Math.floor(options.images / options.queries)) === 0) picked.push({ id, account, public: isPublic, species, vector: embeddingInt8(embedding) });
      }
      await store.collection<ImageStub>(Collections.images).bulkWrite(images);
      await store.collection<ImageVectorDoc>(Collections.imageVectors).bulkWrite(vectors);
    }
    await store.setCheckpoint('breed-centroids', position);
    options.log(`similar images: ${options.images.toLocaleString('en-US')} images written`);

    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const index = similarIndex(store);
    const built = performance.now();
    await index.sync();
    const buildS = (performance.now() - built) / 1000;
    global.gc?.();
    const rssGrowthMiB = Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20);
    options.log(`similar images: index of ${index.size.toLocaleString('en-US')} built in ${buildS.toFixed(1)} s`);

    const plain: number[] = [];
    const bySpecies: number[] = [];
    const cpuBefore = process.cpuUsage();
    for (const [n, image] of picked.entries()) {
      // the image's own account, or another that sees it when it is public
      const accountId = image.public && n % 2 === 1 ? `account-${(Number(image.account.slice(8)) + 1) % ACCOUNTS}` : image.account;
      const species = n % 3 === 2 ? image.species : undefined;
      const started = performance.now();
      const { shown } = await index.visibleNearest(image.vector, { accountId, model: 'bench-model', species, exclude: image.id }, 10);
      (species ? bySpecies : plain).push(performance.now() - started);
      if (shown.length !== 10) throw new Error(`similar images: ${shown.length} found for ${image.id}, 10 expected`);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const round = (value: number | null) => Math.round((value ?? NaN) * 10) / 10;
    return {
      images: options.images,
      buildS: round(buildS),
      indexMiB: Math.round(index.bytes / 2 ** 20),
      rssGrowthMiB,
      p50Ms: round(percentile([...plain, ...bySpecies], 50)),
      p99Ms: round(percentile([...plain, ...bySpecies], 99)),
      cpuMs: round((cpu.user + cpu.system) / 1000 / picked.length),
      speciesP99Ms: round(percentile(bySpecies, 99)),
      queries: picked.length,
    };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openVisionModels, resolveModelDir } from '../../infrastructure/vision/index.ts';
import { datasetPresent, evaluateOxfordPets, mean, share } from '../../scripts/eval/oxford-pets.ts';
import { figure, notAvailable } from '../harness/figure.ts';
import { measureSimilarImages } from '../harness/similar-images.ts';
import type { BenchItem } from '../harness/types.ts';

/** One photo per breed of the Oxford-IIIT Pet sample (`npm run eval:vision` runs all 370). */
const PHOTOS = 37;
/** Images in the similar-images measure (BENCH_SIMILAR_IMAGES; the goal is set at 100,000). */
const SIMILAR_IMAGES = Number(process.env.BENCH_SIMILAR_IMAGES ?? 100_000);
const SIMILAR_QUERIES = 300;

/**
 * The image models' CPU per photo, in this process (not the service's): safety, detection and
 * classification of the image and of up to three animal crops, as the pipeline runs them on the
 * upload's `med` size (scripts/eval/oxford-pets.ts), on 37 photos of the Oxford-IIIT Pet sample;
 * with the species accuracy and the animal found on those photos beside it. And the similar-images
 * read path of the query API at 100,000 images (bench/harness/similar-images.ts), which needs no
 * models.
 */
export const item: BenchItem = {
  name: '9 vision',
  target: 'safety + detection + classification of up to 3 crops ≤ 100 ms CPU per photo (Oxford-IIIT Pet sample, models in-process); similar images p99 ≤ 50 ms at 100,000 images',
  async run(ctx) {
    const similar = await measureSimilarImages({ images: SIMILAR_IMAGES, queries: SIMILAR_QUERIES, log: ctx.log });
    const images = `${similar.images.toLocaleString('en-US')} images`;
    const similarFigures = [
      figure({
        item: '9 vision',
        metric: `similar images p99 (${images}, limit 10)`,
        value: similar.p99Ms,
        unit: 'ms',
        targets: [{ on: 'value', op: '<=', threshold: 50 }],
        note: `${similar.queries} queries in this process on the embedded read store: index brought up to date, searched, answers re-checked on the images read model; p50 ${similar.p50Ms} ms, with species_id p99 ${similar.speciesP99Ms} ms`,
      }),
      figure({ item: '9 vision', metric: `similar images CPU per query (${images})`, value: similar.cpuMs, unit: 'ms' }),
      figure({
        item: '9 vision',
        metric: `similar images index (${images})`,
        value: similar.indexMiB,
        unit: 'MiB',
        note: `built from the read model in ${similar.buildS} s; this process's RSS grew by ${similar.rssGrowthMiB} MiB`,
      }),
    ];
    if (!existsSync(join(resolveModelDir(), 'manifest.json'))) return [...similarFigures, notAvailable('9 vision', 'the image models are not installed (npm run models)')];
    if (!datasetPresent()) return [...similarFigures, notAvailable('9 vision', 'the Oxford-IIIT Pet sample is not in ../shared/datasets/oxford-pets-sample')];
    const vision = openVisionModels({ nice: 0 });
    try {
      const { results } = await evaluateOxfordPets(vision, { limit: PHOTOS });
      const models = vision.info().map((m) => `${m.name.split(' (')[0]} ${m.version}`).join(', ');
      ctx.log(`9 vision: ${results.length} photos, ${models}`);
      const pct = (value: number) => Math.round(value * 1000) / 10;
      return [
        ...similarFigures,
        figure({
          item: '9 vision',
          metric: 'CPU per photo: safety + detection + classification of the image and up to 3 crops',
          value: Math.round(mean(results.map((r) => r.cpuMs + r.safetyCpuMs))),
          unit: 'ms',
          targets: [{ on: 'value', op: '<=', threshold: 100 }],
          note: `${results.length} Oxford-IIIT Pet photos (med size); of which safety ${Math.round(mean(results.map((r) => r.safetyCpuMs)))} ms`,
        }),
        figure({ item: '9 vision', metric: 'species right', value: pct(share(results, (r) => r.speciesRight)), unit: '%', note: `${results.length} photos; all 370: npm run eval:vision` }),
        figure({ item: '9 vision', metric: 'animal found (right-species box on the head)', value: pct(share(results, (r) => r.found)), unit: '%' }),
      ];
    } finally {
      await vision.close();
    }
  },
};

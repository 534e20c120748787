/**
 * `npm run eval:vision`: the image pipeline's judgement on the Oxford-IIIT Pet sample — species,
 * animal found, breed suggestions, CPU per photo (what each figure means: oxford-pets.ts).
 *
 * Options (environment): EVAL_DATASET (folder), EVAL_LIMIT=n (n photos spread over the sample),
 * EVAL_MIN_SPECIES=0.99 (exit 1 when species accuracy is lower), EVAL_MIN_BREED_TOP1=0.85 (exit 1 when
 * the learnt breed suggestions' top-1 is lower), EVAL_SPLITS=n (catalogue/held-out splits, default 5),
 * EVAL_FLIP=1 (also records each photo's mirrored and whole-image embeddings in EVAL_JSON, for experiments),
 * EVAL_JSON=path (per-photo results).
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { openVisionModels } from '../../infrastructure/vision/index.ts';
import { CATALOGUE_PER_BREED, DEFAULT_SPLITS, evaluateBreedSplits } from './breed-splits.ts';
import { DEFAULT_DATASET, evaluateOxfordPets, mean, quantile, referenceBreeds, share, type PhotoResult } from './oxford-pets.ts';

const vision = openVisionModels({ nice: 0 });
try {
  const { dataset, results, refused, wallMs } = await evaluateOxfordPets(vision, {
    dataset: process.env.EVAL_DATASET ? resolve(process.env.EVAL_DATASET) : DEFAULT_DATASET,
    limit: Number(process.env.EVAL_LIMIT ?? 0),
    flip: process.env.EVAL_FLIP === '1',
    onProgress: (done, total) => {
      if (done % 50 === 0) process.stderr.write(`  ${done}/${total}\n`);
    },
  });

  const pct = (part: PhotoResult[], test: (r: PhotoResult) => boolean) => (part.length ? `${(100 * share(part, test)).toFixed(1)} %` : '–');
  const groups: [string, PhotoResult[]][] = [
    ['all', results],
    ['cats', results.filter((r) => r.species === 'cat')],
    ['dogs', results.filter((r) => r.species === 'dog')],
  ];
  const cpu = results.map((r) => r.cpuMs);
  const withSafety = results.map((r) => r.cpuMs + r.safetyCpuMs);
  console.log(`Oxford-IIIT Pet sample (${dataset}): ${results.length} photos; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`models: ${vision.info().map((m) => `${m.name.split(' (')[0]} (${m.version})`).join(', ')}`);
  console.log('');
  console.log('|  | photos | species | animal found | breed top-1 (by-name map) | breed top-5 (by-name map) | same on the main crop: top-1 | top-5 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, part] of groups) {
    console.log(`| ${name} | ${part.length} | ${pct(part, (r) => r.speciesRight)} | ${pct(part, (r) => r.found)} | ${pct(part, (r) => r.breedTop1)} | ${pct(part, (r) => r.breedTop5)} | ${pct(part, (r) => r.cropTop1)} | ${pct(part, (r) => r.cropTop5)} |`);
  }
  console.log('');
  console.log(`an animal box (any species) on the head: ${pct(results, (r) => r.anyAnimalOnHead)}; no animal box at all: ${results.filter((r) => r.animals.length === 0).length} photos`);
  console.log(`CPU per photo, detection + classification of the image and up to 3 crops (all threads): mean ${mean(cpu).toFixed(0)} ms, median ${quantile(cpu, 0.5).toFixed(0)} ms, p90 ${quantile(cpu, 0.9).toFixed(0)} ms`);
  console.log(`CPU per photo with the safety model too: mean ${mean(withSafety).toFixed(0)} ms, p90 ${quantile(withSafety, 0.9).toFixed(0)} ms; wall ${(wallMs / results.length).toFixed(0)} ms per photo including the upload sizes`);
  if (refused.length > 0) console.log(`refused by the upload checks (analysed from a med size made by sharp): ${refused.join(', ')}`);
  const wrong = results.filter((r) => !r.speciesRight);
  if (wrong.length > 0) console.log(`species wrong: ${wrong.map((r) => `${r.name} (${r.predicted ?? 'none'})`).join(', ')}`);

  // breed suggestions learnt from the catalogue: seeded splits, 7 labelled photos per breed, 3 held out
  const splits = evaluateBreedSplits(results, referenceBreeds(), { splits: Number(process.env.EVAL_SPLITS ?? DEFAULT_SPLITS) });
  const rate = (flags: boolean[]) => flags.filter(Boolean).length / flags.length;
  const spread = (values: number[]) => {
    const m = mean(values);
    return `${(100 * m).toFixed(1)} ± ${(100 * Math.sqrt(mean(values.map((v) => (v - m) ** 2)))).toFixed(1)} %`;
  };
  const bySpecies = (species: string | null, flags: 'top1' | 'top5') =>
    splits.map((s) => rate(s[flags].filter((_, i) => species === null || s.heldOut[i].species === species)));
  console.log('');
  console.log(
    `Breed suggestions learnt from the catalogue (${splits.length} seeded splits; per breed ${CATALOGUE_PER_BREED} photos uploaded with their breed, the others held out; nearest centroids blended with the by-name map; mean ± sd over the splits):`,
  );
  console.log('');
  console.log('|  | held out per split | species | breed top-1 | breed top-5 |');
  console.log('|---|---|---|---|---|');
  for (const [name, species] of [['all', null], ['cats', 'cat'], ['dogs', 'dog']] as const) {
    const held = splits[0].heldOut.filter((p) => species === null || p.species === species);
    const speciesRight = splits.map((s) => rate(s.heldOut.filter((p) => species === null || p.species === species).map((p) => p.speciesRight)));
    console.log(`| ${name} | ${held.length} | ${spread(speciesRight)} | ${spread(bySpecies(species, 'top1'))} | ${spread(bySpecies(species, 'top5'))} |`);
  }
  const minTop1 = Number(process.env.EVAL_MIN_BREED_TOP1 ?? 0);
  const top1 = mean(bySpecies(null, 'top1'));
  if (!(top1 >= minTop1)) {
    console.error(`eval:vision: breed top-1 ${(top1 * 100).toFixed(1)} % is under the floor ${(minTop1 * 100).toFixed(1)} %`);
    process.exitCode = 1;
  }

  if (process.env.EVAL_JSON) writeFileSync(process.env.EVAL_JSON, JSON.stringify(results, null, 1));

  const minSpecies = Number(process.env.EVAL_MIN_SPECIES ?? 0);
  const accuracy = share(results, (r) => r.speciesRight);
  if (!(accuracy >= minSpecies)) {
    console.error(`eval:vision: species accuracy ${(accuracy * 100).toFixed(1)} % is under the floor ${(minSpecies * 100).toFixed(1)} %`);
    process.exitCode = 1;
  }
} finally {
  await vision.close();
}

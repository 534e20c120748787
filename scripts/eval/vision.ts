/**
 * `npm run eval:vision`: the image pipeline's judgement on the Oxford-IIIT Pet sample
 * (../shared/datasets/oxford-pets-sample/, 370 photos, 37 breeds × 10; see its README).
 *
 * Each photo goes the way an upload goes — its `med` size made by the upload code
 * (processUpload), then analyseImage, the labelling processor's own analysis (detector, classifier
 * on the whole image and on the animal crops, species rule) on the real models, in this process —
 * and is scored on:
 *   species          the species the image is labelled with (cat or dog) is right;
 *   animal found     an animal box of the right species (after relabelling) contains the centre of
 *                    the photo's head box (head-boxes.csv);
 *   breed top-1/5    `suggested_breed_ids` as the labelling processor makes them today (the
 *                    classifier's ImageNet breed classes on the whole image matched by name,
 *                    suggestBreeds), the right breed first / among the first five (ids from
 *                    reference-data by name); and the same method on the main animal's crop;
 *   CPU per photo    the process's CPU time (all threads: models, decoding) over analyseImage calls.
 *
 * Options (environment): EVAL_DATASET (folder), EVAL_LIMIT=n (every k-th photo so that n remain),
 * EVAL_MIN_SPECIES=0.99 (exit 1 when species accuracy is lower), EVAL_JSON=path (per-photo results).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suggestBreeds, type BreedName } from '../../domain/images/analysis.ts';
import sharp from 'sharp';
import { processUpload, SIZE_BOUNDS } from '../../infrastructure/images/process-upload.ts';
import { openVisionModels } from '../../infrastructure/vision/index.ts';
import { analyseImage } from '../../processors/images/analyse.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATASET = resolve(process.env.EVAL_DATASET ?? join(ROOT, '../shared/datasets/oxford-pets-sample'));
const SPECIES_ID: Record<string, string> = { cat: '1', dog: '2' };

const csv = (file: string): Record<string, string>[] => {
  const [header, ...rows] = readFileSync(join(DATASET, file), 'utf8').trim().split(/\r?\n/).map((line) => line.split(','));
  return rows.map((row) => Object.fromEntries(header.map((key, i) => [key, row[i]])));
};

const breeds: BreedName[] = ['cats.json', 'dogs-1.json', 'dogs-2.json'].flatMap((file) =>
  (JSON.parse(readFileSync(join(ROOT, 'reference-data/breeds', file), 'utf8')) as BreedName[]).map(({ id, name, species_id }) => ({ id, name, species_id })),
);
const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
/** Oxford's breed names whose reference-data name differs */
const RENAMED: Record<string, string> = { german_shorthaired: 'german-shorthaired-pointer', wheaten_terrier: 'soft-coated-wheaten-terrier' };
const breedId = (oxford: string): string => {
  const id = RENAMED[oxford] ?? breeds.find((b) => normalise(b.name) === normalise(oxford))?.id;
  if (!id) throw new Error(`no reference breed named like ${oxford}`);
  return id;
};

const heads = new Map(csv('head-boxes.csv').map((row) => [row.image_name, row]));
let photos = csv('labels.csv').map((row) => ({ name: row.image_name, breed: row.breed, species: row.species }));
const limit = Number(process.env.EVAL_LIMIT ?? 0);
if (limit > 0 && limit < photos.length) {
  const step = photos.length / limit;
  photos = Array.from({ length: limit }, (_, i) => photos[Math.floor(i * step)]);
}

type Result = {
  name: string; species: string; breed: string; predicted: string | null; speciesRight: boolean;
  anyAnimalOnHead: boolean; found: boolean; animals: { label: string; confidence: number }[];
  suggested: string[]; breedTop1: boolean; breedTop5: boolean; cropTop1: boolean; cropTop5: boolean; cpuMs: number;
};

/**
 * The `med` size as an upload makes it. A photo the upload checks refuse (a false positive of
 * theirs: the sample's photos are plain JPEGs) is made the same way by sharp directly, and counted.
 */
const refused: string[] = [];
const medOf = async (name: string): Promise<Buffer> => {
  const bytes = readFileSync(join(DATASET, 'images', `${name}.jpg`));
  try {
    return (await processUpload(bytes)).sizes.med;
  } catch (error) {
    refused.push(`${name} (${(error as Error).message})`);
    return sharp(bytes).rotate().resize({ width: SIZE_BOUNDS.med, height: SIZE_BOUNDS.med, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
  }
};

const vision = openVisionModels({ nice: 0 });
const results: Result[] = [];
try {
  // load the models outside the measurement
  await analyseImage(vision, await medOf(photos[0].name));
  refused.length = 0;

  const started = performance.now();
  let cpuTotal = 0;
  for (const photo of photos) {
    const med = await medOf(photo.name);
    const cpu0 = process.cpuUsage();
    const analysis = await analyseImage(vision, med);
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    cpuTotal += cpuMs;

    const head = heads.get(photo.name)!;
    const cx = (Number(head.xmin) + Number(head.xmax)) / 2 / Number(head.image_width);
    const cy = (Number(head.ymin) + Number(head.ymax)) / 2 / Number(head.image_height);
    const onHead = analysis.animals.filter((a) => cx >= a.box.left && cx <= a.box.left + a.box.width && cy >= a.box.top && cy <= a.box.top + a.box.height);
    const expected = SPECIES_ID[photo.species];
    const ofSpecies = breeds.filter((b) => b.species_id === analysis.species);
    const suggested = suggestBreeds(analysis.whole.top, ofSpecies);
    const fromCrop = suggestBreeds(analysis.main.top, ofSpecies);
    const id = breedId(photo.breed);
    results.push({
      name: photo.name,
      species: photo.species,
      breed: photo.breed,
      predicted: analysis.species,
      speciesRight: analysis.species === expected,
      anyAnimalOnHead: onHead.length > 0,
      found: onHead.some((a) => a.label === photo.species),
      animals: analysis.animals.map((a) => ({ label: a.label, confidence: Math.round(a.confidence * 1000) / 1000 })),
      suggested,
      breedTop1: suggested[0] === id,
      breedTop5: suggested.slice(0, 5).includes(id),
      cropTop1: fromCrop[0] === id,
      cropTop5: fromCrop.slice(0, 5).includes(id),
      cpuMs,
    });
    if (results.length % 50 === 0) process.stderr.write(`  ${results.length}/${photos.length}\n`);
  }
  const wallMs = performance.now() - started;

  const pct = (part: Result[], test: (r: Result) => boolean) => (part.length ? `${((100 * part.filter(test).length) / part.length).toFixed(1)} %` : '–');
  const groups: [string, Result[]][] = [
    ['all', results],
    ['cats', results.filter((r) => r.species === 'cat')],
    ['dogs', results.filter((r) => r.species === 'dog')],
  ];
  const sorted = results.map((r) => r.cpuMs).sort((a, b) => a - b);
  console.log(`Oxford-IIIT Pet sample (${DATASET}): ${results.length} photos; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`models: ${vision.info().filter((m) => m.task !== 'safety').map((m) => `${m.name.split(' (')[0]} (${m.version})`).join(', ')}`);
  console.log('');
  console.log('|  | photos | species | animal found | breed top-1 (by-name map) | breed top-5 (by-name map) | same on the main crop: top-1 | top-5 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [name, part] of groups) {
    console.log(`| ${name} | ${part.length} | ${pct(part, (r) => r.speciesRight)} | ${pct(part, (r) => r.found)} | ${pct(part, (r) => r.breedTop1)} | ${pct(part, (r) => r.breedTop5)} | ${pct(part, (r) => r.cropTop1)} | ${pct(part, (r) => r.cropTop5)} |`);
  }
  console.log('');
  console.log(`an animal box (any species) on the head: ${pct(results, (r) => r.anyAnimalOnHead)}; no animal box at all: ${results.filter((r) => r.animals.length === 0).length} photos`);
  console.log(`CPU per photo (detection + classification of the image and up to 3 crops, all threads): mean ${(cpuTotal / results.length).toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(0)} ms, p90 ${sorted[Math.floor(sorted.length * 0.9)].toFixed(0)} ms; wall ${(wallMs / results.length).toFixed(0)} ms per photo including the upload sizes`);
  if (refused.length > 0) console.log(`refused by the upload checks (analysed from a med size made by sharp): ${refused.join(', ')}`);
  const wrong = results.filter((r) => !r.speciesRight);
  if (wrong.length > 0) console.log(`species wrong: ${wrong.map((r) => `${r.name} (${r.predicted ?? 'none'})`).join(', ')}`);
  if (process.env.EVAL_JSON) writeFileSync(process.env.EVAL_JSON, JSON.stringify(results, null, 1));

  const minSpecies = Number(process.env.EVAL_MIN_SPECIES ?? 0);
  const accuracy = results.filter((r) => r.speciesRight).length / results.length;
  if (accuracy < minSpecies) {
    console.error(`eval:vision: species accuracy ${(accuracy * 100).toFixed(1)} % is under the floor ${(minSpecies * 100).toFixed(1)} %`);
    process.exitCode = 1;
  }
} finally {
  await vision.close();
}

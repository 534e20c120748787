/**
 * The image pipeline's judgement on the Oxford-IIIT Pet sample (../shared/datasets/oxford-pets-sample/,
 * 370 photos, 37 breeds × 10; see its README), as `npm run eval:vision` prints it and bench item
 * 8 measures it. Each photo goes the way an upload goes — its `med` size made by the upload code
 * (processUpload), the safety model on it, then analyseImage, the labelling processor's own
 * analysis (detector, classifier on the whole image and on the animal crops, species rule) — on
 * the real models, in this process, one photo at a time. Per photo:
 *   species        the species the image is labelled with (cat or dog) is right;
 *   found          an animal box of the right species (after relabelling) contains the centre of
 *                  the photo's head box (head-boxes.csv);
 *   breed top-1/5  `suggested_breed_ids` as the labelling processor makes them today (the
 *                  classifier's ImageNet breed classes on the whole image matched by name,
 *                  suggestBreeds), the right breed first / among the first five (ids from
 *                  reference-data by name); and the same method on the main animal's crop;
 *   CPU            the process's CPU time (all threads) over the safety call and over analyseImage.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { suggestBreeds, type BreedName } from '../../domain/images/analysis.ts';
import { SIZE_BOUNDS } from '../../infrastructure/images/process-upload.ts';
import type { VisionModels } from '../../infrastructure/vision/port.ts';
import { encodeEmbedding, type ImageEmbedding } from '../../domain/images/embedding.ts';
import { breedVectorOf } from '../../domain/images/breed-centroids.ts';
import { analyseImage } from '../../processors/images/analyse.ts';
import { preparePhoto, resolvedEntries } from '../../runtime/image-import/import.ts';
import { breedMatcher, type BreedRef } from '../../runtime/image-import/breeds.ts';
import { oxfordPhotos, writeOxfordManifest, type OxfordPhoto } from './oxford-manifest.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DEFAULT_DATASET = resolve(join(ROOT, '../shared/datasets/oxford-pets-sample'));
const SPECIES_ID: Record<string, string> = { cat: '1', dog: '2' };

export type PhotoResult = {
  name: string;
  species: string;
  breed: string;
  predicted: string | null;
  speciesRight: boolean;
  anyAnimalOnHead: boolean;
  found: boolean;
  animals: { label: string; confidence: number }[];
  suggested: string[];
  breedTop1: boolean;
  breedTop5: boolean;
  cropTop1: boolean;
  cropTop5: boolean;
  /** CPU of analyseImage (detection, classification of the image and up to 3 crops) */
  cpuMs: number;
  /** CPU of the safety model's call */
  safetyCpuMs: number;
  /** the photo's breed id (reference data) */
  breedId: string;
  /** the classifier's top classes on the whole image (what suggestBreeds maps by name) */
  wholeTop: { index: number; label: string; confidence: number }[];
  /** the embedding the labelling processor records (main animal's crop, else the whole image) */
  embedding: ImageEmbedding;
  /** the vector the labelling processor places the image by for its breed (breedVectorOf) */
  breedVector: ImageEmbedding;
  /** EVAL_FLIP only: the same region of the mirrored image */
  flipped?: ImageEmbedding;
  /** EVAL_FLIP only: the mirrored whole image's features */
  wholeFlipped?: ImageEmbedding;
  /** EVAL_FLIP only: the whole image's features */
  whole?: ImageEmbedding;
};

export type EvalRun = { dataset: string; results: PhotoResult[]; refused: string[]; wallMs: number };

export const referenceBreeds = (): BreedName[] =>
  ['cats.json', 'dogs-1.json', 'dogs-2.json'].flatMap((file) =>
    (JSON.parse(readFileSync(join(ROOT, 'reference-data/breeds', file), 'utf8')) as BreedName[]).map(({ id, name, species_id }) => ({ id, name, species_id })),
  );

/**
 * The photos as the photo import reads them — the sample's manifest (oxford-manifest.ts), each row
 * resolved by the import (breeds matched to the reference breeds, file inside the folder): the
 * labelled catalogue the breed figures are learnt from has the breeds an import gives it.
 */
const catalogueOf = async (dataset: string, selected: OxfordPhoto[]): Promise<(OxfordPhoto & { path: string; breedId: string })[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'eval-manifest-'));
  try {
    const manifest = writeOxfordManifest(dataset, join(dir, 'manifest.csv'), selected);
    const breeds = breedMatcher(
      ['cats.json', 'dogs-1.json', 'dogs-2.json'].flatMap((file) => JSON.parse(readFileSync(join(ROOT, 'reference-data/breeds', file), 'utf8')) as BreedRef[]),
    );
    const photos: (OxfordPhoto & { path: string; breedId: string })[] = [];
    let index = 0;
    for await (const resolved of resolvedEntries({ folder: dataset, manifest }, breeds)) {
      const photo = selected[index++];
      if ('skip' in resolved) throw new Error(`the import skips ${resolved.file}: ${resolved.skip} (${resolved.detail})`);
      if (resolved.photo.breed_ids.length !== 1) throw new Error(`${photo.name}: no single breed (${resolved.photo.breed_ids.join(', ')})`);
      photos.push({ ...photo, path: resolved.photo.path, breedId: resolved.photo.breed_ids[0] });
    }
    return photos;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const datasetPresent = (dataset = DEFAULT_DATASET): boolean => existsSync(join(dataset, 'labels.csv')) && existsSync(join(dataset, 'head-boxes.csv'));

/** Evaluates `limit` photos spread evenly over the sample (0: all of them). */
export const evaluateOxfordPets = async (vision: VisionModels, options: { dataset?: string; limit?: number; flip?: boolean; onProgress?: (done: number, total: number) => void } = {}): Promise<EvalRun> => {
  const dataset = options.dataset ?? DEFAULT_DATASET;
  const csv = (file: string): Record<string, string>[] => {
    const [header, ...rows] = readFileSync(join(dataset, file), 'utf8').trim().split(/\r?\n/).map((line) => line.split(','));
    return rows.map((row) => Object.fromEntries(header.map((key, i) => [key, row[i]])));
  };
  const known = referenceBreeds();
  const heads = new Map(csv('head-boxes.csv').map((row) => [row.image_name, row]));
  let selected = oxfordPhotos(dataset);
  const limit = options.limit ?? 0;
  if (limit > 0 && limit < selected.length) {
    const step = selected.length / limit;
    selected = Array.from({ length: limit }, (_, i) => selected[Math.floor(i * step)]);
  }
  // The photos and their breeds as the photo import reads them (its manifest, breed matching and file checks).
  const photos = await catalogueOf(dataset, selected);

  // The `med` size as an upload makes it (the import's preparePhoto: processUpload). A photo the
  // upload checks refuse (a false positive of theirs: the sample's photos are plain JPEGs) is made
  // the same way by sharp directly, and counted.
  const refused: string[] = [];
  const medOf = async (path: string): Promise<Buffer> => {
    const prepared = await preparePhoto(path);
    if ('problem' in prepared) throw new Error(`${path}: ${prepared.problem}`);
    try {
      return (await prepared.image()).sizes.med;
    } catch (error) {
      refused.push(`${basename(path, '.jpg')} (${(error as Error).message})`);
      return sharp(prepared.bytes).rotate().resize({ width: SIZE_BOUNDS.med, height: SIZE_BOUNDS.med, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
    }
  };
  const cpuOf = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const before = process.cpuUsage();
    const result = await work();
    const used = process.cpuUsage(before);
    return [result, (used.user + used.system) / 1000];
  };

  // load the models outside the measurement
  const first = await medOf(photos[0].path);
  await vision.moderate(first);
  await analyseImage(vision, first);
  refused.length = 0;

  const results: PhotoResult[] = [];
  const started = performance.now();
  for (const photo of photos) {
    const med = await medOf(photo.path);
    const [, safetyCpuMs] = await cpuOf(() => vision.moderate(med));
    const [analysis, cpuMs] = await cpuOf(() => analyseImage(vision, med));
    const head = heads.get(photo.name)!;
    const cx = (Number(head.xmin) + Number(head.xmax)) / 2 / Number(head.image_width);
    const cy = (Number(head.ymin) + Number(head.ymax)) / 2 / Number(head.image_height);
    const onHead = analysis.animals.filter((a) => cx >= a.box.left && cx <= a.box.left + a.box.width && cy >= a.box.top && cy <= a.box.top + a.box.height);
    const ofSpecies = known.filter((b) => b.species_id === analysis.species);
    const suggested = suggestBreeds(analysis.whole.top, ofSpecies);
    const fromCrop = suggestBreeds(analysis.main.top, ofSpecies);
    const id = photo.breedId;
    const classifier = vision.info().find((info) => info.task === 'classification');
    const model = classifier ? `${classifier.name} ${classifier.version}` : 'unknown';
    let flipped: ImageEmbedding | undefined;
    let wholeFlipped: ImageEmbedding | undefined;
    if (options.flip) {
      const box = analysis.mainRegion === 'crop' ? analysis.animals[0].box : null;
      const mirrored = box ? { ...box, left: 1 - box.left - box.width } : null;
      const [view, wholeView] = await vision.examine(await sharp(med).flop().toBuffer(), [mirrored, null], { topK: 5 });
      flipped = encodeEmbedding(view.features, model, analysis.mainRegion);
      wholeFlipped = encodeEmbedding(wholeView.features, model, 'image');
    }
    results.push({
      name: photo.name,
      species: photo.species,
      breed: photo.breed,
      predicted: analysis.species,
      speciesRight: analysis.species === SPECIES_ID[photo.species],
      anyAnimalOnHead: onHead.length > 0,
      found: onHead.some((a) => a.label === photo.species),
      animals: analysis.animals.map((a) => ({ label: a.label, confidence: Math.round(a.confidence * 1000) / 1000 })),
      suggested,
      breedTop1: suggested[0] === id,
      breedTop5: suggested.slice(0, 5).includes(id),
      cropTop1: fromCrop[0] === id,
      cropTop5: fromCrop.slice(0, 5).includes(id),
      cpuMs,
      safetyCpuMs,
      breedId: id,
      wholeTop: analysis.whole.top.map(({ index, label, confidence }) => ({ index, label, confidence })),
      embedding: encodeEmbedding(analysis.main.features, model, analysis.mainRegion),
      breedVector: breedVectorOf({
        embedding: encodeEmbedding(analysis.main.features, model, analysis.mainRegion),
        image_embedding: analysis.mainRegion === 'crop' ? encodeEmbedding(analysis.whole.features, model, 'image') : undefined,
      })!,
      flipped,
      wholeFlipped,
      whole: options.flip ? encodeEmbedding(analysis.whole.features, model, 'image') : undefined,
    });
    options.onProgress?.(results.length, photos.length);
  }
  return { dataset, results, refused, wallMs: performance.now() - started };
};

export const share = (results: readonly PhotoResult[], test: (r: PhotoResult) => boolean): number => (results.length ? results.filter(test).length / results.length : Number.NaN);
export const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
export const quantile = (values: readonly number[], q: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

/**
 * The species an uploaded photo is labelled with, end to end on the real models: a photo of our
 * own making — a real dog (Oxford-IIIT Pet sample, CC BY-SA 4.0, read from ../shared/datasets at
 * test time, not copied) beside a distractor (scikit-image's coffee cup photo). The detector calls
 * this dog a cat (box on the dog, 'cat' ≈ 0.8, beside 'cup' ≈ 0.9) and the whole image holds under
 * 1 % of the classifier's mass on dogs: only the classifier's view of the box's crop makes it a dog.
 * Skipped when the models or the dataset are missing, except in CI where the models must be there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine, decodeEmbedding, type ImageEmbedding } from '../domain/images/embedding.ts';
import { fixturePath, resolveModelDir } from '../infrastructure/vision/index.ts';
import { startTestService, type TestService } from './service.ts';

const DOG = fileURLToPath(new URL('../../shared/datasets/oxford-pets-sample/images/pomeranian_150.jpg', import.meta.url));
const modelsInstalled = existsSync(join(resolveModelDir(), 'manifest.json')) && fixturePath('coffee') !== null;
const datasetThere = existsSync(DOG);
if (!modelsInstalled || !datasetThere) console.warn(`images-species.e2e: skipped (${!modelsInstalled ? 'models not installed: npm run models' : `no ${DOG}`})`);

const HEIGHT = 360;

/** The cup on the left, the dog on the right, both scaled to one height; `dogLeft` is where the dog starts (fraction of the width). */
const dogBesideCup = async (): Promise<{ jpeg: Buffer; dogLeft: number }> => {
  const cup = await sharp(readFileSync(fixturePath('coffee')!)).resize({ height: HEIGHT }).toBuffer({ resolveWithObject: true });
  const dog = await sharp(readFileSync(DOG)).resize({ height: HEIGHT }).toBuffer({ resolveWithObject: true });
  const width = cup.info.width + dog.info.width;
  const jpeg = await sharp({ create: { width, height: HEIGHT, channels: 3, background: '#ffffff' } })
    .composite([{ input: cup.data, left: 0, top: 0 }, { input: dog.data, left: cup.info.width, top: 0 }])
    .jpeg({ quality: 90 })
    .toBuffer();
  return { jpeg, dogLeft: cup.info.width / width };
};

describe.runIf(modelsInstalled && datasetThere)('species on real photos', () => {
  let service: TestService;
  let key = '';

  beforeAll(async () => {
    service = await startTestService({ uploadSyncTimeoutMs: 120_000 });
    key = (await service.createAccount()).api_key;
  }, 120_000);
  afterAll(async () => {
    await service?.dispose();
  });

  it('labels a dog standing beside another object a dog, its box relabelled from the detector’s cat', async () => {
    const { jpeg, dogLeft } = await dogBesideCup();
    const upload = await service.request('POST', '/v1/images/upload-sync', {
      key,
      body: { type: 'base64', image: jpeg.toString('base64'), auto_crop: false },
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const body = upload.body as { id: string; status: string; species_id: string | null };
    expect(body.status).toBe('labelled');
    expect(body.species_id).toBe('2');

    const analysis = await service.request('GET', `/v1/images/${body.id}/analysis`, { key });
    expect(analysis.status).toBe(200);
    const labels = (analysis.body as { labels: { Name: string; Instances: { BoundingBox: { Left: number; Width: number } }[] }[] }[])[0].labels;
    const dog = labels.find((label) => label.Name === 'Dog');
    expect(dog, JSON.stringify(labels.map((l) => l.Name))).toBeDefined();
    // the dog's box is on the dog's half of the photo; no box is left labelled a cat
    expect(dog!.Instances.length).toBeGreaterThan(0);
    for (const instance of dog!.Instances) expect(instance.BoundingBox.Left + instance.BoundingBox.Width / 2).toBeGreaterThan(dogLeft);
    expect(labels.find((label) => label.Name === 'Cat')?.Instances ?? []).toEqual([]);

    // the labelling event records the embedding of the dog's crop, with the classifier's version
    const events = await service.adapters.eventStore.readStream(`image-${body.id}`);
    const labelled = events.find((event) => event.type === 'ImageLabelled')!.data as { embedding?: ImageEmbedding };
    expect(labelled.embedding).toMatchObject({ region: 'crop', dims: 1280, encoding: 'int8', model: expect.stringContaining('EfficientNet-Lite0') });
    const vector = decodeEmbedding(labelled.embedding!);
    expect(cosine(vector, vector)).toBeCloseTo(1, 4);
  }, 180_000);
});

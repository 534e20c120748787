/**
 * Categories from what is seen, end to end: an uploaded photo is put in the reference categories
 * its species' models can see (domain/images/categories.ts), recorded in ImageLabelled, and the
 * `category_ids` filters of image search and the owner's list find it.
 * - With the test double (always runs): puppies from the age the uploader gave.
 * - On the real models (when installed, and the Oxford-IIIT Pet sample beside the repository,
 *   CC BY-SA 4.0, read at test time): a boxer with a tennis ball in its mouth is "playing"
 *   (the classifier gives the tennis ball ≈ 0.8 of the whole image), the cat photo uploaded as
 *   three months old is "kittens", and a photo of a dog alone gets no category.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath, resolveModelDir } from '../infrastructure/vision/index.ts';
import { startTestService, type TestService } from './service.ts';
import { DOG_RGB, drawScene, visionDouble } from './vision-double.ts';

const PUPPIES = '108';
const PLAYING_DOG = '112';
const KITTENS = '100';

type Uploaded = { id: string; status: string; species_id: string | null; categories: { id: number | string; name: string }[] };

const uploadSync = async (service: TestService, key: string, image: Buffer, extra: Record<string, unknown> = {}): Promise<Uploaded> => {
  const upload = await service.request('POST', '/v1/images/upload-sync', {
    key,
    body: { type: 'base64', image: image.toString('base64'), auto_crop: false, ...extra },
  });
  expect(upload.status, JSON.stringify(upload.body)).toBe(201);
  return upload.body as Uploaded;
};

const idsOf = (body: unknown): string[] => (body as { id: string }[]).map((image) => image.id).sort();

describe('image categories with the test double', () => {
  let service: TestService;
  let key = '';

  beforeAll(async () => {
    service = await startTestService({}, undefined, { vision: visionDouble() });
    key = (await service.createAccount()).api_key;
  }, 60_000);
  afterAll(async () => {
    await service?.dispose();
  });

  it('a dog uploaded as 4 months old is in puppies, one without an age in none; category_ids filters find it', async () => {
    const photo = await drawScene(400, 300, [{ rgb: DOG_RGB, left: 60, top: 40, width: 200, height: 180 }]);
    const young = await uploadSync(service, key, photo, { age_months: 4 });
    const ageless = await uploadSync(service, key, photo);
    expect(young.species_id).toBe('2');
    expect(young.categories.map((c) => [String(c.id), c.name])).toEqual([[PUPPIES, 'puppies']]);
    expect(ageless.categories).toEqual([]);

    const events = await service.adapters.eventStore.readStream(`image-${young.id}`);
    expect(events.find((event) => event.type === 'ImageLabelled')!.data).toMatchObject({ category_ids: [PUPPIES] });

    const search = await service.request('GET', `/v1/images/search?category_ids=${PUPPIES}&limit=10&include_categories=1`, { key });
    expect(search.status).toBe(200);
    expect(idsOf(search.body)).toEqual([young.id]);
    expect((search.body as Uploaded[])[0].categories.map((c) => String(c.id))).toEqual([PUPPIES]);
    const list = await service.request('GET', `/v1/images?category_ids=${PUPPIES},1&limit=10`, { key });
    expect(list.status).toBe(200);
    expect(idsOf(list.body)).toEqual([young.id]);
    const none = await service.request('GET', `/v1/images/search?category_ids=${KITTENS}&limit=10`, { key });
    expect(none.body).toEqual([]);
  }, 60_000);
});

const DATASET = fileURLToPath(new URL('../../shared/datasets/oxford-pets-sample/images/', import.meta.url));
const modelsInstalled = existsSync(join(resolveModelDir(), 'manifest.json')) && fixturePath('chelsea') !== null;
const datasetThere = existsSync(join(DATASET, 'boxer_157.jpg'));
if (!modelsInstalled || !datasetThere) console.warn(`image-categories.e2e: real-model part skipped (${!modelsInstalled ? 'models not installed: npm run models' : `no ${DATASET}`})`);

describe.runIf(modelsInstalled && datasetThere)('image categories on the real models', () => {
  let service: TestService;
  let key = '';

  beforeAll(async () => {
    service = await startTestService({ uploadSyncTimeoutMs: 120_000 });
    key = (await service.createAccount()).api_key;
  }, 120_000);
  afterAll(async () => {
    await service?.dispose();
  });

  it('a dog with a ball is playing, a three-month-old cat is a kitten, a dog alone is in no category; filters find each', async () => {
    const boxer = await uploadSync(service, key, readFileSync(join(DATASET, 'boxer_157.jpg')));
    const kitten = await uploadSync(service, key, readFileSync(fixturePath('chelsea')!), { age_months: 3 });
    const alone = await uploadSync(service, key, readFileSync(join(DATASET, 'pomeranian_150.jpg')));
    expect([boxer.species_id, kitten.species_id, alone.species_id]).toEqual(['2', '1', '2']);
    expect(boxer.categories.map((c) => c.name)).toEqual(['playing']);
    expect(kitten.categories.map((c) => c.name)).toEqual(['kittens']);
    expect(alone.categories).toEqual([]);

    const playing = await service.request('GET', `/v1/images/search?category_ids=${PLAYING_DOG}&limit=10`, { key });
    expect(idsOf(playing.body)).toEqual([boxer.id]);
    const kittens = await service.request('GET', `/v1/images?category_ids=${KITTENS}&limit=10`, { key });
    expect(idsOf(kittens.body)).toEqual([kitten.id]);
    const either = await service.request('GET', `/v1/images/search?category_ids=${KITTENS},${PLAYING_DOG}&limit=10`, { key });
    expect(idsOf(either.body)).toEqual([boxer.id, kitten.id].sort());
  }, 300_000);
});

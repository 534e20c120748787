import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageLabel } from '../domain/images/image.ts';
import { seedImage } from './image-fixtures.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { waitUntil } from './webhook-receiver.ts';

/**
 * Breeds' reference images over real sockets: the best public photo of the breed (the detector's
 * confidence in the breed's species) is named by reference_image_id and embedded as `image` by
 * GET /breeds, GET /breeds/{id} and GET /breeds/search?attach_image=1; it gives way to a better
 * one, and to the next best when deleted.
 */
let service: TestService;
let owner: { key: string; id: string };
let reader: { key: string; id: string };

const account = async () => {
  const created = await service.createAccount();
  return { key: created.api_key, id: created.account_id };
};
const get = (path: string, key = reader.key) => service.request('GET', path, { key });

const cat = (confidence: number): ImageLabel => ({
  Name: 'Cat',
  Confidence: confidence,
  Instances: [{ BoundingBox: { Width: 0.6, Height: 0.7, Left: 0.2, Top: 0.1 }, Confidence: confidence }],
  Parents: [{ Name: 'Animal' }],
});

/** A labelled photo of `breedId` with the detector's confidence in a cat, made public by an admin. */
const publicCat = async (breedId: string, confidence: number): Promise<string> => {
  const id = await seedImage(service, owner.id, { breed_ids: [breedId], labelled: { species_id: '1', labels: [cat(confidence)] } });
  expect((await service.request('POST', `/v1/images/${id}/public-requests`, { key: owner.key, body: {} })).status).toBe(201);
  expect((await service.request('POST', `/v1/images/${id}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
  return id;
};

/** GET /breeds/{id} as another account sees it, once its reference is `expected` (another account's writes are not read-your-writes). */
const breedOnceReference = async (breedId: string, expected: string | null) =>
  waitUntil(
    async () => {
      const body = (await get(`/v1/breeds/${breedId}`)).body;
      return body.reference_image_id === expected && (expected === null || body.image?.id === expected) ? body : undefined;
    },
    10_000,
    `${breedId}'s reference ${expected}`,
  );

beforeAll(async () => {
  service = await startTestService();
  owner = await account();
  reader = await account();
});
afterAll(async () => {
  await service?.dispose();
});

describe('breed reference images', () => {
  it('embeds the best public photo in GET /breeds/{id}, /breeds and /breeds/search?attach_image=1, and moves with better and deleted photos', async () => {
    const fair = await publicCat('abys', 60);
    let breed = await breedOnceReference('abys', fair);
    expect(breed.image).toMatchObject({ id: fair, approved: 1, breed_ids: ['abys'], sub_id: null, species_id: '1' });
    expect(breed.image.url).toMatch(/\/v1\/images\/files\//);
    expect(breed.image).not.toHaveProperty('original_filename');

    const better = await publicCat('abys', 97);
    breed = await breedOnceReference('abys', better);
    // a worse one changes nothing
    const worse = await publicCat('abys', 20);
    expect((await get('/v1/images/search?breed_ids=abys&limit=10&order=ASC')).body.map((image: { id: string }) => image.id)).toContain(worse);
    expect((await get('/v1/breeds/abys')).body.reference_image_id).toBe(better);

    // GET /breeds embeds it where a breed has one (and nothing on the others); attach_image=0 embeds none
    const list = (await get('/v1/breeds?limit=1000')).body as { id: string; image?: { id: string } | null }[];
    expect(list.find((item) => item.id === 'abys')?.image?.id).toBe(better);
    expect(list.find((item) => item.id === 'beng')).not.toHaveProperty('image');
    expect((await get('/v1/breeds?limit=1000&attach_image=0')).body.find((item: { id: string }) => item.id === 'abys')).not.toHaveProperty('image');
    // the same answer again is the same bytes (kept with the catalogue's answer), with an ETag that revalidates
    const again = await get('/v1/breeds?limit=1000');
    expect(again.body).toEqual(list);
    const etag = again.headers.get('etag')!;
    expect((await service.request('GET', '/v1/breeds?limit=1000', { key: reader.key, headers: { 'if-none-match': etag } })).status).toBe(304);

    // the search embeds with attach_image only, null on breeds without one
    const searched = (await get('/v1/breeds/search?q=abyssinian&attach_image=1')).body.find((item: { id: string }) => item.id === 'abys');
    expect(searched.image).toMatchObject({ id: better, url: breed.image.url });
    expect((await get('/v1/breeds/search?q=abyssinian')).body.find((item: { id: string }) => item.id === 'abys')).not.toHaveProperty('image');
    expect((await get('/v1/breeds/search?q=bengal&attach_image=1')).body.find((item: { id: string }) => item.id === 'beng').image).toBeNull();
    expect((await get('/v1/breeds/beng?attach_image=1')).body.image).toBeNull();
    expect((await get('/v1/breeds/beng')).body).not.toHaveProperty('image');

    // deleting the reference gives way to the next best, and the embedded image follows
    expect((await service.request('DELETE', `/v1/images/${better}`, { key: owner.key })).status).toBe(200);
    breed = await breedOnceReference('abys', fair);
    expect(breed.image.id).toBe(fair);
    const relisted = (await get('/v1/breeds?limit=1000')).body.find((item: { id: string }) => item.id === 'abys');
    expect(relisted.image.id).toBe(fair);
  });
});

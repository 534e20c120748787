import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { DOG_RGB, visionDouble } from './vision-double.ts';

/**
 * Portraits end to end, with the test double of the detector (it finds a blue patch as a dog):
 * the generated image is a PNG of the documented size, the animal's pixels come from the photo
 * (its yellow mark sits in the middle of the blue body), the photo's own background is cut away,
 * the background differs by style, and photo ids that are not the pet's are refused.
 */
let service: TestService;
let key = '';
let otherKey = '';
let noFeatureKey = '';

const PINK = { r: 200, g: 120, b: 160 };
const YELLOW = { r: 250, g: 230, b: 20 };

/** A 400×300 photo: pink ground, a blue "dog" 120×100 at (140, 90) with a yellow 20×20 mark in its middle. */
const photo = async (withDog = true): Promise<Buffer> => {
  const block = (rgb: typeof PINK, width: number, height: number) => sharp({ create: { width, height, channels: 3, background: rgb } }).png().toBuffer();
  const layers = withDog
    ? [
        { input: await block(DOG_RGB, 120, 100), left: 140, top: 90 },
        { input: await block(YELLOW, 20, 20), left: 190, top: 130 },
      ]
    : [];
  return sharp({ create: { width: 400, height: 300, channels: 3, background: PINK } }).composite(layers).png().toBuffer();
};

beforeAll(async () => {
  service = await startTestService({ referenceDataImport: false } as never, undefined, { vision: visionDouble() });
  key = (await service.createAccount({ name: 'portraits' })).api_key;
  otherKey = (await service.createAccount({ name: 'portraits other' })).api_key;
  noFeatureKey = (await service.createAccount({ name: 'no portraits', features: ['pets'] })).api_key;
}, 120_000);

afterAll(async () => {
  await service?.dispose();
});

const newPet = async (apiKey = key) => {
  const response = await service.request('POST', '/v1/pets', { key: apiKey, body: { name: 'Model', species_id: '2' } });
  expect(response.status).toBe(201);
  return response.body.id as string;
};

const addPhoto = async (petId: string, bytes: Buffer, apiKey = key): Promise<string> => {
  const form = new FormData();
  form.append('images', new Blob([bytes], { type: 'image/png' }), 'dog.png');
  form.append('poses', JSON.stringify({ 0: 'side' }));
  const response = await fetch(`${service.url}/v1/pets/${petId}/images`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }[])[0].id;
};

const fileOf = async (petId: string, mediaId: string) => {
  const response = await fetch(`${service.url}/v1/pets/${petId}/images/${mediaId}/file`, { headers: { 'x-api-key': key } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  return Buffer.from(await response.arrayBuffer());
};

const near = (data: Buffer, offset: number, rgb: typeof PINK, tolerance = 12) =>
  Math.abs(data[offset] - rgb.r) <= tolerance && Math.abs(data[offset + 1] - rgb.g) <= tolerance && Math.abs(data[offset + 2] - rgb.b) <= tolerance;

describe('portraits', () => {
  it('draws the pet cut out of its photo onto the style, stored as a portrait media record', async () => {
    const petId = await newPet();
    const photoId = await addPhoto(petId, await photo());
    const response = await service.request('POST', `/v1/pets/${petId}/portrait`, { key, body: { style: 'studio', image_ids: [photoId] } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ pet_id: petId, kind: 'portrait', portrait_style_id: 'studio', mime_type: 'image/png', width: 1024, height: 1024, pose: 'side' });

    const images = (await service.request('GET', `/v1/pets/${petId}/images`, { key })).body as { id: string; kind: string; portrait_style_id: string | null }[];
    expect(images.map((item) => [item.kind, item.portrait_style_id])).toEqual([
      ['photo', null],
      ['portrait', 'studio'],
    ]);

    const png = await fileOf(petId, response.body.id);
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([1024, 1024]);
    let blue = 0;
    let pink = 0;
    let minX = Infinity;
    let maxX = -1;
    let minY = Infinity;
    let maxY = -1;
    let yellowX = 0;
    let yellowY = 0;
    let yellow = 0;
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const offset = (y * info.width + x) * 3;
        if (near(data, offset, PINK)) pink++;
        if (near(data, offset, YELLOW)) {
          yellow++;
          yellowX += x;
          yellowY += y;
        }
        if (near(data, offset, DOG_RGB)) {
          blue++;
          minX = Math.min(minX, x);
          maxX = Math.max(maxX, x);
          minY = Math.min(minY, y);
          maxY = Math.max(maxY, y);
        }
      }
    }
    // The animal is there, large, with its mark in its middle: pixels from the photo.
    expect(blue).toBeGreaterThan(1024 * 1024 * 0.2);
    expect(yellow).toBeGreaterThan(500);
    expect(yellowX / yellow).toBeCloseTo((minX + maxX) / 2, -1);
    expect(yellowY / yellow).toBeCloseTo((minY + maxY) / 2, -1);
    // The photo's pink ground inside the detector's box was cut away by the mask.
    expect(pink).toBeLessThan(1024 * 1024 * 0.002);
  });

  it('the background differs by style; a photo with no animal is 422; wrong ids, kinds and styles are refused', async () => {
    const petId = await newPet();
    const photoId = await addPhoto(petId, await photo());
    const corner = async (style: string) => {
      const response = await service.request('POST', `/v1/pets/${petId}/portrait`, { key, body: { style } });
      expect(response.status).toBe(201);
      const { data } = await sharp(await fileOf(petId, response.body.id)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const at = (x: number, y: number) => [...data.subarray((y * 1024 + x) * 3, (y * 1024 + x) * 3 + 3)];
      return [at(8, 8), at(1015, 500), at(100, 1000)];
    };
    const studio = await corner('studio');
    const party = await corner('birthday_party');
    const leader = await corner('pack_leader');
    expect(party).not.toEqual(studio);
    expect(leader).not.toEqual(studio);
    expect(leader).not.toEqual(party);

    const otherPet = await newPet();
    const otherPhoto = await addPhoto(otherPet, await photo(false));
    const foreign = await service.request('POST', `/v1/pets/${petId}/portrait`, { key, body: { style: 'studio', image_ids: [photoId, otherPhoto] } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.code).toBe('image_not_of_pet');
    const noAnimal = await service.request('POST', `/v1/pets/${otherPet}/portrait`, { key, body: { style: 'studio' } });
    expect(noAnimal.status).toBe(422);
    expect(noAnimal.body.code).toBe('analysis_not_possible');
    expect(noAnimal.body.message).toContain('no animal');
    const badStyle = await service.request('POST', `/v1/pets/${petId}/portrait`, { key, body: { style: 'cubist' } });
    expect(badStyle.status).toBe(400);
    expect(badStyle.body.code).toBe('validation_failed');
    const portraitAsSource = (await service.request('GET', `/v1/pets/${petId}/images`, { key })).body.find((item: { kind: string }) => item.kind === 'portrait').id;
    const notPhoto = await service.request('POST', `/v1/pets/${petId}/portrait`, { key, body: { style: 'studio', image_ids: [portraitAsSource] } });
    expect(notPhoto.status).toBe(400);
    expect(notPhoto.body.code).toBe('validation_failed');

    expect((await service.request('POST', `/v1/pets/${petId}/portrait`, { key: otherKey, body: { style: 'studio' } })).status).toBe(403);
    const feature = await service.request('POST', `/v1/pets/${petId}/portrait`, { key: noFeatureKey, body: { style: 'studio' } });
    expect(feature.status).toBe(403);
    expect(feature.body.message).toContain('portraits');
    const empty = await newPet();
    const none = await service.request('POST', `/v1/pets/${empty}/portrait`, { key, body: { style: 'studio' } });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('pet_has_no_photos');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { drawScene, UNSAFE_RGB, visionDouble, type VisionDouble } from './vision-double.ts';
import { waitUntil } from './webhook-receiver.ts';

/**
 * Pet photo safety review through the running service: photos are stored `pending`, the
 * `pet-photo-review` processor moderates them (with the test double for the models: a photo more
 * than 20 % pure red is unsafe) and the pet's media read model shows `clean` or `rejected`.
 */

let service: TestService;
let vision: VisionDouble;
let key = '';

beforeAll(async () => {
  vision = visionDouble();
  service = await startTestService({ referenceDataImport: false } as never, undefined, { vision });
  key = (await service.createAccount({ name: 'photo review' })).api_key;
});
afterAll(async () => {
  await service?.dispose();
});

type Media = { id: string; kind: string; review_status: string };

const photoForm = (files: Buffer[]) => {
  const form = new FormData();
  files.forEach((file, index) => form.append('images', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), `photo-${index}.jpg`));
  return form;
};
const upload = async (path: string, form: FormData) => {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: response.status, body: (await response.json()) as any };
};
const mediaOf = async (petId: string) => (await service.request('GET', `/v1/pets/${petId}/images`, { key })).body as Media[];
const reviewed = (petId: string, count: number) =>
  waitUntil(
    async () => {
      const media = await mediaOf(petId);
      return media.filter((item) => item.review_status !== 'pending').length === count ? media : undefined;
    },
    20_000,
    `${count} reviewed photos of pet ${petId}`,
  );

describe('pet photo safety review', () => {
  it('moves a clean photo to clean and a photo the model flags to rejected, once each', async () => {
    const pet = await service.request('POST', '/v1/pets', { key, body: { name: 'Reviewed' } });
    expect(pet.status).toBe(201);
    const petId = pet.body.id as string;
    const clean = await drawScene(320, 240, []);
    const unsafe = await drawScene(320, 240, [{ rgb: UNSAFE_RGB, left: 0, top: 0, width: 320, height: 160 }]);
    const before = vision.calls.moderate;
    const added = await upload(`/v1/pets/${petId}/images`, photoForm([clean, unsafe]));
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.map((m: Media) => m.review_status)).toEqual(['pending', 'pending']);

    const media = await reviewed(petId, 2);
    const byId = new Map(media.map((item) => [item.id, item.review_status]));
    expect(byId.get(added.body[0].id)).toBe('clean');
    expect(byId.get(added.body[1].id)).toBe('rejected');
    const shown = await service.request('GET', `/v1/pets/${petId}`, { key });
    expect(shown.body.images.map((m: Media) => m.review_status).sort()).toEqual(['clean', 'rejected']);

    // The same bytes again name the existing records: nothing new to review, no second verdict.
    const again = await upload(`/v1/pets/${petId}/images`, photoForm([clean]));
    expect(again.status).toBe(200);
    expect(again.body[0]).toMatchObject({ id: added.body[0].id, review_status: 'clean' });
    expect(vision.calls.moderate - before).toBe(2);
  });
});

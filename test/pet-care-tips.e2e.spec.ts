import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';

/**
 * Care tips end to end: breed-standard tips of the pet's breed from the seeded reference data,
 * personalised tips from the pet's record (age, body condition, country → season and climate),
 * the options, and the per-signature cache — the same request answers the same result until new
 * photos or a changed profile invalidate it.
 */
let service: TestService;
let key = '';
let otherKey = '';
let noFeatureKey = '';

beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount({ name: 'care tips' })).api_key;
  otherKey = (await service.createAccount({ name: 'care tips other' })).api_key;
  noFeatureKey = (await service.createAccount({ name: 'no care tips', features: ['pets'] })).api_key;
}, 120_000);

afterAll(async () => {
  await service?.dispose();
});

const png = (seed: number): Promise<Buffer> =>
  sharp({ create: { width: 16, height: 16, channels: 3, background: { r: seed, g: 90, b: 40 } } }).png().toBuffer();

const addPhoto = async (petId: string, seed: number) => {
  const form = new FormData();
  form.append('images', new Blob([await png(seed)], { type: 'image/png' }), `photo-${seed}.png`);
  const response = await fetch(`${service.url}/v1/pets/${petId}/images`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  expect(response.status).toBe(201);
};

/** Southern-hemisphere meteorological season of this month (the test's own table). */
const southernSeason = () => ['summer', 'summer', 'autumn', 'autumn', 'autumn', 'winter', 'winter', 'winter', 'spring', 'spring', 'spring', 'summer'][new Date().getUTCMonth()];

type Tip = { id: string; tip_type: string; category: string; title: string; description: string; reasons: string; sources?: string[] };

describe('care tips', () => {
  it('400 pet_has_no_photos before any photo; then breed-standard and personalised tips, cached until the inputs change', async () => {
    const created = await service.request('POST', '/v1/pets', {
      key,
      body: { name: 'Tipsy', breed_id: 'american-water-spaniel', age_years: 9, age_months: 0, body_condition_score: 8, country: 'AU' },
    });
    expect(created.status).toBe(201);
    const petId = created.body.id as string;
    const path = `/v1/pets/${petId}/care-tips`;

    const none = await service.request('GET', path, { key });
    expect(none.status).toBe(400);
    expect(none.body.code).toBe('pet_has_no_photos');

    await addPhoto(petId, 1);
    const first = await service.request('GET', path, { key });
    expect(first.status).toBe(200);
    const items = first.body.items as Tip[];
    const seeded = items.filter((tip) => tip.tip_type === 'breed_standard');
    expect(seeded.length).toBeGreaterThanOrEqual(2);
    expect(seeded.map((tip) => tip.id)).toEqual(seeded.map((_, index) => `care-american-water-spaniel-${index + 1}`));
    expect(seeded[0].title).toBe('Dry the curls after swimming');
    const personal = items.filter((tip) => tip.tip_type === 'personalised').map((tip) => tip.id.slice(petId.length + 1));
    // 9 years: senior for a medium dog; BCS 8: obese; Australia: southern hemisphere, temperate.
    expect(personal).toEqual(['life_stage_senior', 'bcs_obese', `season_${southernSeason()}`]);
    expect(items.find((tip) => tip.id.endsWith('bcs_obese'))?.reasons).toContain('body condition score 8/9');
    expect(items.every((tip) => !('sources' in tip))).toBe(true);

    // The same request: the cached result, as it was.
    const again = await service.request('GET', path, { key });
    expect(again.body).toEqual(first.body);
    const alias = await service.request('GET', `/v1/pets/${petId}/health-tips`, { key });
    expect(alias.body).toEqual(first.body);

    // Other options are another signature.
    const personalOnly = await service.request('GET', `${path}?include_seeded=false&include_sources=true`, { key });
    expect((personalOnly.body.items as Tip[]).map((tip) => tip.tip_type)).toEqual(['personalised', 'personalised', 'personalised']);
    expect((personalOnly.body.items as Tip[]).every((tip) => Array.isArray(tip.sources))).toBe(true);

    // A new photo invalidates the cache: computed again (a new generated_at), same rules.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await addPhoto(petId, 2);
    const afterPhoto = await service.request('GET', path, { key });
    expect(afterPhoto.status).toBe(200);
    expect(afterPhoto.body.generated_at).not.toBe(first.body.generated_at);
    expect(afterPhoto.body.items).toEqual(first.body.items);
    expect((await service.request('GET', path, { key })).body.generated_at).toBe(afterPhoto.body.generated_at);

    // A changed profile too: BCS 5 now, and a cold country.
    const patched = await service.request('PATCH', `/v1/pets/${petId}`, { key, body: { body_condition_score: 5, country: 'FI' } });
    expect(patched.status).toBe(200);
    const afterPatch = await service.request('GET', path, { key });
    const rules = (afterPatch.body.items as Tip[]).filter((tip) => tip.tip_type === 'personalised').map((tip) => tip.id.slice(petId.length + 1));
    expect(rules).toContain('bcs_ideal');
    expect(rules).toContain('climate_cold');
    expect(rules).not.toContain('bcs_obese');
  });

  it('a pet without breed, age or country gets no invented tips; 403 for another account or without the feature', async () => {
    const created = await service.request('POST', '/v1/pets', { key, body: { name: 'Plain' } });
    const petId = created.body.id as string;
    await addPhoto(petId, 3);
    const response = await service.request('GET', `/v1/pets/${petId}/care-tips`, { key });
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([]);
    expect((await service.request('GET', `/v1/pets/${petId}/care-tips`, { key: otherKey })).status).toBe(403);
    const feature = await service.request('GET', `/v1/pets/${petId}/care-tips`, { key: noFeatureKey });
    expect(feature.status).toBe(403);
    expect(feature.body.message).toContain('care_tips');
    expect((await service.request('GET', '/v1/pets/nope/care-tips', { key })).status).toBe(404);
  });
});

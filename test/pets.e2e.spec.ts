import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';

/** Pet profiles: create (JSON), list with filters, get, update, delete; validation, ownership, usage. */

let service: TestService;
let key = '';
let otherKey = '';

beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount({ name: 'pets' })).api_key;
  otherKey = (await service.createAccount({ name: 'pets other' })).api_key;
}, 120_000);

afterAll(async () => {
  await service?.dispose();
});

const createPet = async (body: Record<string, unknown>, apiKey = key) => service.request('POST', '/v1/pets', { key: apiKey, body });

describe('pet profiles', () => {
  it('registers a pet with every field, taking the species from the breed, and reads it back', async () => {
    const created = await createPet({
      name: 'Mittens',
      breed_id: 'abys',
      description: 'sleeps a lot',
      microchip_id: '985 112-345.678 901',
      sub_id: 'owner-1',
      country: 'gb',
      date_of_birth: '2022-03-04',
      body_condition_score: 5,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      message: 'SUCCESS',
      name: 'Mittens',
      breed_id: 'abys',
      species_id: '1',
      microchip_id: '985112345678901',
      country: 'GB',
      date_of_birth: '2022-03-04',
      age_years: null,
      body_condition_score: 5,
      images: [],
    });
    for (const field of ['body_condition_score_reasons', 'estimated_age_months', 'genealogy_result', 'muscle_wasting_risk', 'estimated_weight_kg', 'estimated_size_classification']) {
      expect(created.body[field]).toBeNull();
    }
    const id = created.body.id as string;
    const read = await service.request('GET', `/v1/pets/${id}`, { key });
    expect(read.status).toBe(200);
    const { message: _message, ...resource } = created.body;
    expect(read.body).toEqual(resource);
  });

  it('refuses bad input with one message per problem, and stores nothing', async () => {
    const before = (await service.request('GET', '/v1/pets?limit=100', { key })).headers.get('pagination-count');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ date_of_birth: '2020-01-01', age_years: 2, age_months: 3 }, /not both/],
      [{ age_years: 1, age_months: 12 }, /age_months/],
      [{ body_condition_score: 10 }, /body_condition_score/],
      [{ body_condition_score: 0 }, /body_condition_score/],
      [{ country: 'XX' }, /country/],
      [{ country: 'UK' }, /country/],
      [{ breed_id: 'no-such-breed' }, /breed_id/],
      [{ breed_id: 'abys', species_id: '2' }, /species_id/],
      [{ microchip_id: '12345' }, /microchip_id/],
      [{ name: 7 }, /name/],
      [{ age_years: '3' }, /age_years/],
      [{ colour: 'black' }, /colour/],
      [{ date_of_birth: '2020-02-30' }, /date_of_birth/],
    ];
    for (const [body, pattern] of cases) {
      const response = await createPet(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(JSON.stringify(response.body.message)).toMatch(pattern);
    }
    const combined = await createPet({ country: 'XX', breed_id: 'no-such-breed', body_condition_score: 5, microchip_id: 'x' });
    expect(combined.body.message.length).toBeGreaterThanOrEqual(3);
    expect((await service.request('GET', '/v1/pets?limit=100', { key })).headers.get('pagination-count')).toBe(before);
  });

  it('lists the caller’s pets with the breed, species, sub_id and breed group filters (style A)', async () => {
    const account = await service.createAccount({ name: 'pets list' });
    const own = (body: Record<string, unknown>) => createPet(body, account.api_key).then((response) => response.body.id as string);
    const cat = await own({ name: 'a', breed_id: 'abys', sub_id: 's1' });
    const dog = await own({ name: 'b', breed_id: 'american-water-spaniel', sub_id: 's2' });
    const horse = await own({ name: 'c', species_id: '3', sub_id: 's1' });
    await createPet({ name: 'not mine', breed_id: 'abys' }, otherKey);
    const list = async (query: string) => {
      const response = await service.request('GET', `/v1/pets${query}`, { key: account.api_key });
      expect(response.status).toBe(200);
      return response;
    };
    const all = await list('');
    expect(all.body.map((pet: { id: string }) => pet.id)).toEqual([cat, dog, horse]);
    expect(all.headers.get('pagination-count')).toBe('3');
    expect((await list('?order=DESC')).body.map((pet: { id: string }) => pet.id)).toEqual([horse, dog, cat]);
    expect((await list('?limit=1&page=1')).body.map((pet: { id: string }) => pet.id)).toEqual([dog]);
    expect((await list('?breed_id=abys')).body.map((pet: { id: string }) => pet.id)).toEqual([cat]);
    expect((await list('?species_id=2')).body.map((pet: { id: string }) => pet.id)).toEqual([dog]);
    expect((await list('?sub_id=s1')).body.map((pet: { id: string }) => pet.id)).toEqual([cat, horse]);
    expect((await list('?breed_groups=SPORTING')).body.map((pet: { id: string }) => pet.id)).toEqual([dog]);
    expect((await list('?exclude_breed_groups=sporting')).body.map((pet: { id: string }) => pet.id)).toEqual([cat, horse]);
    const tooMany = await service.request('GET', '/v1/pets?limit=101', { key: account.api_key });
    expect(tooMany.status).toBe(400);
  });

  it('updates a pet: an age replaces the date of birth, a new breed brings its species, null clears', async () => {
    const id = (await createPet({ name: 'Rex', breed_id: 'abys', date_of_birth: '2021-01-01' })).body.id;
    const aged = await service.request('PATCH', `/v1/pets/${id}`, { key, body: { age_years: 2, age_months: 6, name: 'Rexy' } });
    expect(aged.status).toBe(200);
    expect(aged.body).toMatchObject({ name: 'Rexy', date_of_birth: null, age_years: 2, age_months: 6 });
    expect(aged.body.age_recorded_at).toMatch(/^\d{4}-/);
    const rebred = await service.request('PATCH', `/v1/pets/${id}`, { key, body: { breed_id: 'american-water-spaniel', description: null } });
    expect(rebred.body).toMatchObject({ breed_id: 'american-water-spaniel', species_id: '2', description: null });
    expect((await service.request('PATCH', `/v1/pets/${id}`, { key, body: { species_id: '1' } })).status).toBe(400);
    expect((await service.request('PATCH', `/v1/pets/${id}`, { key, body: { age_months: 12 } })).status).toBe(400);
    const read = await service.request('GET', `/v1/pets/${id}`, { key });
    expect(read.body).toMatchObject({ name: 'Rexy', breed_id: 'american-water-spaniel', species_id: '2', age_years: 2 });
  });

  it('another account’s pet answers 403, a missing one 404, a deleted one 404', async () => {
    const id = (await createPet({ name: 'Private' })).body.id;
    expect((await service.request('GET', `/v1/pets/${id}`, { key: otherKey })).body.code).toBe('forbidden');
    expect((await service.request('PATCH', `/v1/pets/${id}`, { key: otherKey, body: { name: 'x' } })).status).toBe(403);
    expect((await service.request('DELETE', `/v1/pets/${id}`, { key: otherKey })).status).toBe(403);
    expect((await service.request('GET', `/v1/pets/${id}/images`, { key: otherKey })).status).toBe(403);
    expect((await service.request('GET', '/v1/pets/nope-nope', { key })).status).toBe(404);
    expect((await service.request('DELETE', `/v1/pets/${id}`, { key })).body).toEqual({ message: 'SUCCESS' });
    expect((await service.request('GET', `/v1/pets/${id}`, { key })).status).toBe(404);
    expect((await service.request('DELETE', `/v1/pets/${id}`, { key })).status).toBe(404);
  });

  it('needs the pets feature (403 naming it)', async () => {
    const lacking = await service.createAccount({ name: 'no pets', features: ['votes'] });
    const response = await createPet({ name: 'x' }, lacking.api_key);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('feature_not_enabled');
    expect(response.body.message).toContain('pets');
  });

  it('usage per sub_id counts pets', async () => {
    const account = await service.createAccount({ name: 'pets usage' });
    await createPet({ sub_id: 'u-a' }, account.api_key);
    await createPet({ sub_id: 'u-a' }, account.api_key);
    await createPet({ sub_id: 'u-b' }, account.api_key);
    const usage = await service.request('GET', '/v1/accounts/usage', { key: account.api_key });
    expect(usage.body).toEqual([
      { sub_id: 'u-a', images: 0, votes: 0, favourites: 0, pets: 2 },
      { sub_id: 'u-b', images: 0, votes: 0, favourites: 0, pets: 1 },
    ]);
  });
});

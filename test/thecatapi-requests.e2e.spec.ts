import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';

/**
 * Requests TheCatAPI accepts, as its clients (and its own Postman collection) send them: a JSON
 * content type on bodiless requests, the singular DELETE /vote/{id}, webhooks registered with
 * `name` and `events`, and the analyses' context in a JSON body.
 */
let service: TestService;
let key: string;
const JSON_TYPE = { 'content-type': 'application/json' };

beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true });
  key = (await service.createAccount({ name: 'thecatapi client' })).api_key;
});
afterAll(async () => {
  await service?.dispose();
});

const vote = async () => {
  const created = await service.request('POST', '/v1/votes', { key, body: { image_id: 'asf2', sub_id: 'my-user-1234', value: 1 } });
  expect(created.status).toBe(201);
  return created.body.id as number;
};

describe('an empty body with Content-Type: application/json is no body', () => {
  it('on DELETE, GET and a bodiless POST; a non-empty malformed body stays 400 invalid_json', async () => {
    const id = await vote();
    const deleted = await service.request('DELETE', `/v1/votes/${id}`, { key, headers: JSON_TYPE, raw: '' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toEqual({ message: 'SUCCESS' });
    expect((await service.request('GET', `/v1/votes/${id}`, { key })).status).toBe(404);

    const listed = await service.request('GET', '/v1/votes', { key, headers: JSON_TYPE });
    expect(listed.status).toBe(200);

    const hook = await service.request('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['vote.created'] } });
    expect(hook.status).toBe(201);
    const rotated = await service.request('POST', `/v1/webhooks/${hook.body.id}/rotate-secret`, { key, headers: JSON_TYPE, raw: '' });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);

    // A body that is required is still required: no body is a validation error, not invalid_json.
    expectEnvelope(await service.request('POST', '/v1/votes', { key, headers: JSON_TYPE, raw: '' }), 400, 'validation_failed');

    const other = await vote();
    expectEnvelope(await service.request('DELETE', `/v1/votes/${other}`, { key, headers: JSON_TYPE, raw: '{' }), 400, 'invalid_json');
    expectEnvelope(await service.request('DELETE', `/v1/votes/${other}`, { key, headers: JSON_TYPE, raw: ' ' }), 400, 'invalid_json');
    expect((await service.request('GET', `/v1/votes/${other}`, { key })).status).toBe(200);
  });
});

describe('DELETE /v1/vote/{id}', () => {
  it('is DELETE /v1/votes/{id} under TheCatAPI’s singular path, deprecated in the OpenAPI document', async () => {
    const id = await vote();
    const deleted = await service.request('DELETE', `/v1/vote/${id}`, { key, headers: JSON_TYPE, raw: '' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toEqual({ message: 'SUCCESS' });
    expect((await service.request('GET', `/v1/votes/${id}`, { key })).status).toBe(404);
    expectEnvelope(await service.request('DELETE', `/v1/vote/${id}`, { key }), 404, 'not_found');
    const otherKey = (await service.createAccount()).api_key;
    const theirs = await vote();
    expectEnvelope(await service.request('DELETE', `/v1/vote/${theirs}`, { key: otherKey }), 403, 'forbidden');

    const document = (await service.request('GET', '/v1/openapi.json', { key: null })).body;
    expect(document.paths['/v1/vote/{id}'].delete.deprecated).toBe(true);
    expect(document.paths['/v1/votes/{id}'].delete.deprecated).toBeUndefined();
  });
});

describe('POST /v1/webhooks with TheCatAPI’s body', () => {
  it('takes `events` for enabled_events and keeps `name`, shown by create, list and get', async () => {
    const created = await service.request('POST', '/v1/webhooks', {
      key,
      body: { name: 'Charef', url: 'http://127.0.0.1:9/thecatapi', events: ['favourite.created'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Charef', enabled_events: ['favourite.created'] });
    const got = await service.request('GET', `/v1/webhooks/${created.body.id}`, { key });
    expect(got.body).toMatchObject({ name: 'Charef', enabled_events: ['favourite.created'] });
    const listed = await service.request('GET', '/v1/webhooks', { key });
    expect(listed.body.find((hook: { id: string }) => hook.id === created.body.id)).toMatchObject({ name: 'Charef' });

    const unnamed = await service.request('POST', '/v1/webhooks', { key, body: { url: 'http://127.0.0.1:9/plain', enabled_events: ['vote.created'] } });
    expect(unnamed.body.name).toBeNull();
    expect((await service.request('GET', `/v1/webhooks/${unnamed.body.id}`, { key })).body.name).toBeNull();
  });

  it('refuses both names at once, neither, and a bad alias as it refuses enabled_events', async () => {
    const url = 'http://127.0.0.1:9/x';
    expectEnvelope(await service.request('POST', '/v1/webhooks', { key, body: { url, events: ['vote.created'], enabled_events: ['vote.created'] } }), 400, 'validation_failed');
    const neither = expectEnvelope(await service.request('POST', '/v1/webhooks', { key, body: { url } }), 400, 'validation_failed');
    expect(JSON.stringify(neither.message)).toContain('enabled_events');
    expectEnvelope(await service.request('POST', '/v1/webhooks', { key, body: { url, events: 'vote.created' } }), 400, 'validation_failed');
    expectEnvelope(await service.request('POST', '/v1/webhooks', { key, body: { url, events: ['vote.created'], name: '' } }), 400, 'validation_failed');
  });
});

describe('the analyses read season, country and lang from a JSON body too', () => {
  it('validates body values as query values, refuses unknown body fields, and goes on with valid ones', async () => {
    const pet = await service.request('POST', '/v1/pets', { key, body: { name: 'Body context', species_id: '2' } });
    expect(pet.status).toBe(201);
    const operations = ['body-condition-score', 'age-estimate', 'weight-estimate', 'muscle-condition'];
    for (const operation of operations) {
      const path = `/v1/pets/${pet.body.id}/${operation}`;
      const query = expectEnvelope(await service.request('POST', `${path}?season=monsoon`, { key }), 400, 'validation_failed');
      const body = expectEnvelope(await service.request('POST', path, { key, body: { season: 'monsoon' } }), 400, 'validation_failed');
      expect(JSON.stringify(body.message), operation).toContain('season');
      expect(JSON.stringify(query.message)).toContain('season');
      expectEnvelope(await service.request('POST', path, { key, body: { country: 'Narnia' } }), 400, 'validation_failed');
      expectEnvelope(await service.request('POST', path, { key, body: { lang: 'x'.repeat(11) } }), 400, 'validation_failed');
      const unknown = expectEnvelope(await service.request('POST', path, { key, body: { seasons: 'winter' } }), 400, 'validation_failed');
      expect(JSON.stringify(unknown.message)).toContain('seasons');
      // Valid context, in the body, the query or both: the operation runs (this pet has no photos yet).
      for (const options of [{ body: { season: 'winter', country: 'GB', lang: 'en' } }, { raw: '', headers: JSON_TYPE }, {}]) {
        expectEnvelope(await service.request('POST', `${path}?season=summer`, { key, ...options }), 400, 'pet_has_no_photos');
      }
    }
    // The OpenAPI document says the body may be left out (generated clients need not send one).
    const document = (await service.request('GET', '/v1/openapi.json', { key: null })).body;
    for (const operation of operations) expect(document.paths[`/v1/pets/{petId}/${operation}`].post.requestBody.required, operation).toBe(false);
    expect(document.paths['/v1/pets/{petId}/portrait'].post.requestBody.required).toBe(true);
    const portrait = `/v1/pets/${pet.body.id}/portrait`;
    expectEnvelope(await service.request('POST', portrait, { key, body: { style: 'studio', season: 'monsoon' } }), 400, 'validation_failed');
    expectEnvelope(await service.request('POST', `${portrait}?season=monsoon`, { key, body: { style: 'studio' } }), 400, 'validation_failed');
    expect((await service.request('POST', portrait, { key, body: { style: 'studio', season: 'winter', country: 'GB' } })).body.code).toBe('pet_has_no_photos');
  });
});

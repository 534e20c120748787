import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { ALL_FEATURES } from '../domain/accounts/features.ts';

/**
 * Small client contracts: stable operationIds for generated SDKs, PATCH /accounts/capabilities
 * taking what GET answers, Style-B page headers from the offset, and breed search's attach_image.
 */
const PUBLISHED_OPERATION_IDS: Record<string, string> = JSON.parse(readFileSync(new URL('./openapi-operation-ids.json', import.meta.url), 'utf8'));

let service: TestService;
let key: string;
beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount({ name: 'client contracts' })).api_key;
});
afterAll(async () => {
  await service?.dispose();
});

describe('operationIds', () => {
  it('every operation has a unique camelCase operationId, and the published ones are neither renamed nor gone', async () => {
    const document = (await service.request('GET', '/v1/openapi.json', { key: null })).body;
    const served: Record<string, string> = {};
    const missing: string[] = [];
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { operationId?: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (operation.operationId) served[name] = operation.operationId;
        else missing.push(name);
      }
    }
    expect(missing, 'operations without an operationId').toEqual([]);
    const ids = Object.values(served);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index), 'operationIds used twice').toEqual([]);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id)), 'operationIds not in camelCase').toEqual([]);
    const changed = Object.entries(PUBLISHED_OPERATION_IDS)
      .filter(([name, id]) => served[name] !== id)
      .map(([name, id]) => `${name}: published ${id}, served ${served[name] ?? '(no such operation)'}`);
    expect(changed, 'renamed or removed operations break generated clients: keep the published operationId').toEqual([]);
    const unlisted = Object.keys(served).filter((name) => !(name in PUBLISHED_OPERATION_IDS));
    expect(unlisted, 'new operations: name them in http/operation-ids.ts and add them to test/openapi-operation-ids.json').toEqual([]);
    expect(served['GET /v1/images/search']).toBe('searchImages');
    expect(served['POST /v1/votes']).toBe('createVote');
  });
});

describe('PATCH /v1/accounts/capabilities', () => {
  it('takes the [{name, enabled}] list GET answers as well as {capabilities: {name: bool}}', async () => {
    const { api_key } = await service.createAccount();
    const read = await service.request('GET', '/v1/accounts/capabilities', { key: api_key });
    expect(read.status).toBe(200);
    const list = read.body as { name: string; enabled: boolean }[];
    expect(list.length).toBeGreaterThan(1);
    const edited = list.map((item) => (item.name === 'calculators' ? { ...item, enabled: false } : item));
    const patched = await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: edited });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toEqual(edited);
    expect((await service.request('GET', '/v1/accounts/capabilities', { key: api_key })).body).toEqual(edited);
    expectEnvelope(await service.request('GET', '/v1/calculators/calories?weight_kg=4&species_id=1', { key: api_key }), 403, 'capability_disabled');
    const back = await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: { capabilities: { calculators: true } } });
    expect(back.body).toEqual(list);
    expect(ALL_FEATURES).toContain('calculators');
    // Refusals: contradicting items, unknown fields, an empty list.
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: [{ name: 'calculators', enabled: true }, { name: 'calculators', enabled: false }] }), 400, 'validation_failed');
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: [{ name: 'calculators', enabled: true, extra: 1 }] }), 400, 'validation_failed');
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: [] }), 400, 'validation_failed');
    expect((await service.request('GET', '/v1/accounts/capabilities', { key: api_key })).body).toEqual(list);
  });
});

describe('Style-B lists', () => {
  it('answer Pagination-Page floor(offset / limit)', async () => {
    for (const [query, page] of [
      ['limit=5&offset=0', '0'],
      ['limit=5&offset=4', '0'],
      ['limit=5&offset=10', '2'],
      ['limit=5&offset=12', '2'],
      ['limit=3&page=4', '4'],
    ]) {
      for (const path of ['/v1/facts', '/v1/health-tips', '/v1/breeds/abys/facts']) {
        const response = await service.request('GET', `${path}?${query}`, { key });
        expect(response.status).toBe(200);
        expect(response.headers.get('pagination-page'), `${path}?${query}`).toBe(page);
      }
    }
  });
});

describe('GET /v1/breeds/search?attach_image=1', () => {
  it('embeds the breed’s reference image as an Image, null when it has none, nothing without attach_image', async () => {
    const png = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#aa8844' } }).png().toBuffer();
    const upload = await service.request('POST', '/v1/images/upload', { key, body: { type: 'base64', image: png.toString('base64'), breed_ids: ['abys'], sub_id: 'uploader' } });
    expect(upload.status).toBe(201);
    await service.request('POST', `/v1/images/${upload.body.id}/public-requests`, { key, body: {} });
    const { ADMIN_KEY } = await import('./service.ts');
    expect((await service.request('POST', `/v1/images/${upload.body.id}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    const otherKey = (await service.createAccount()).api_key;
    const deadline = Date.now() + 10_000;
    let found: any;
    while (Date.now() < deadline) {
      const response = await service.request('GET', '/v1/breeds/search?q=abyssinian&attach_image=1', { key: otherKey });
      expect(response.status).toBe(200);
      found = response.body.find((breed: { id: string }) => breed.id === 'abys');
      if (found?.reference_image_id === upload.body.id && found.image) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(found.reference_image_id).toBe(upload.body.id);
    expect(found.image).toMatchObject({ id: upload.body.id, url: upload.body.url, breed_ids: ['abys'], approved: 1, sub_id: null, childImages: [] });
    expect(found.image).not.toHaveProperty('original_filename');
    const bare = (await service.request('GET', '/v1/breeds/search?q=abyssinian', { key: otherKey })).body.find((breed: { id: string }) => breed.id === 'abys');
    expect(bare).not.toHaveProperty('image');
    // A breed with no public image: image null.
    const none = (await service.request('GET', '/v1/breeds/search?q=siamese&attach_image=true', { key: otherKey })).body;
    const siamese = none.find((breed: { id: string }) => breed.id === 'siam');
    expect(siamese.reference_image_id ?? null).toBeNull();
    expect(siamese.image).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { rebuildProjection } from '../runtime/rebuild.ts';
import { projections } from '../projectors/index.ts';
import { Collections } from '../contracts/read-models.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.dispose();
});

describe('the all-in-one runtime', () => {
  it('serves /health, /ready, the OpenAPI document and the docs UI', async () => {
    expect((await service.request('GET', '/health')).body).toEqual({ status: 'ok' });
    const ready = await service.request('GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    const openapi = await service.request('GET', '/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.body.paths)).toEqual(expect.arrayContaining(['/v1/votes', '/v1/votes/{id}', '/v1/favourites', '/v1/accounts/usage']));
    expect(openapi.body.paths['/v1/votes'].post.requestBody).toBeDefined();
    expect(openapi.body.components.securitySchemes.apiKey).toMatchObject({ in: 'header', name: 'x-api-key' });
    const docs = await fetch(`${service.url}/v1/docs/`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('answers CORS preflights and exposes the pagination headers', async () => {
    const response = await fetch(`${service.url}/v1/votes`, {
      method: 'OPTIONS',
      headers: { origin: 'https://example.org', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://example.org');
    expect(response.headers.get('access-control-allow-headers')).toContain('x-api-key');
  });

  it('echoes a valid x-request-id and makes one otherwise', async () => {
    const echoed = await service.request('GET', '/health', { headers: { 'x-request-id': 'req-abc.123' } });
    expect(echoed.headers.get('x-request-id')).toBe('req-abc.123');
    const made = await service.request('GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps every write across a restart and rebuilds read models equal to the live ones', async () => {
    const { api_key } = await service.createAccount();
    const votes: number[] = [];
    for (let i = 0; i < 5; i++) votes.push((await service.request('POST', '/v1/votes', { key: api_key, body: { image_id: `r${i}`, value: 1 } })).body.id);
    await service.request('DELETE', `/v1/votes/${votes[0]}`, { key: api_key });
    await service.request('POST', '/v1/favourites', { key: api_key, body: { image_id: 'r1' } });

    service = await service.restart();
    const listed = await service.request('GET', '/v1/votes', { key: api_key });
    expect(listed.body.map((v: { id: number }) => v.id)).toEqual(votes.slice(1));
    expect((await service.request('GET', '/v1/favourites', { key: api_key })).body).toHaveLength(1);

    const { eventStore, readStore } = service.adapters;
    await readStore.waitForCheckpoints(projections.map((p) => p.name), await eventStore.headPosition(), 2000);
    for (const projection of projections) {
      const report = await rebuildProjection(eventStore, readStore, projection);
      expect(report.identical, JSON.stringify(report.collections)).toBe(true);
    }
    // A corrupted live read model is detected and repaired by the rebuild.
    const doc = await readStore.collection(Collections.votes).get(String(votes[1]));
    await readStore.collection(Collections.votes).upsert({ ...(doc as { _id: string }), value: -1 }, 10n ** 12n);
    const votesProjection = projections.find((p) => p.name === 'votes')!;
    const report = await rebuildProjection(eventStore, readStore, votesProjection);
    expect(report.identical).toBe(false);
    expect(report.collections[0].differing).toEqual([String(votes[1])]);
    expect((await readStore.collection(Collections.votes).get(String(votes[1])))?.value).toBe(1);
  });

  it('answers unknown routes and methods with the envelope', async () => {
    expectEnvelope(await service.request('GET', '/votes'), 404, 'route_not_found');
    const wrongMethod = expectEnvelope(await service.request('PATCH', '/v1/votes/1'), 405, 'method_not_allowed');
    expect(wrongMethod.message).toContain('GET, HEAD, DELETE');
  });
});

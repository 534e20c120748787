import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request as rawRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { REFERENCE_DATA_DIR } from '../reference-data/dataset.ts';
import type { Fact, HealthTip } from '../reference-data/schemas.ts';

/**
 * Existing TheCatAPI clients work unchanged (issue 20): `page` and `order` on style-B lists,
 * `?api_key=`, trailing slashes, 405 with Allow, language negotiation and honest language marks,
 * compression, ETag / 304, and usage counting created records. Expectations come from the data
 * files, not from the query code.
 */
const read = <T>(name: string): T[] => JSON.parse(readFileSync(join(REFERENCE_DATA_DIR, name), 'utf8')) as T[];
const facts = ['facts/cats.json', 'facts/dogs.json', 'facts/horses.json'].flatMap((name) => read<Fact>(name)).sort((a, b) => (a.id < b.id ? -1 : 1));
const tips = read<HealthTip>('health-tips.json').sort((a, b) => (a.id < b.id ? -1 : 1));
const factById = new Map(facts.map((fact) => [fact.id, fact]));

let service: TestService;
let key: string;
const get = (path: string, headers: Record<string, string> = {}) => service.request('GET', path, { key, headers });
const ids = (items: { id: string | number }[]) => items.map((item) => item.id);

beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount()).api_key;
});
afterAll(async () => {
  await service?.dispose();
});

describe('style-B lists accept page and order', () => {
  const breedFacts = facts.filter((fact) => fact.breed_id === 'mcoo');

  it('pages with page (offset = page × limit), offset winning, until an empty page', async () => {
    expect(breedFacts.length).toBeGreaterThan(1);
    for (const path of ['/v1/breeds/mcoo/facts', '/v1/facts/breed/mcoo']) {
      const seen: (string | number)[] = [];
      for (let page = 0; page < breedFacts.length + 2; page++) {
        const response = await get(`${path}?limit=1&page=${page}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('pagination-page')).toBe(String(page));
        if (response.body.length === 0) break;
        seen.push(...ids(response.body));
      }
      expect(seen).toEqual(ids(breedFacts));
    }
    const both = await get('/v1/facts?limit=5&page=3&offset=2');
    expect(ids(both.body)).toEqual(ids(facts.slice(2, 7)));
    expect(both.headers.get('pagination-page')).toBe('0');
    const tipsPage = await get('/v1/health-tips?limit=4&page=2');
    expect(ids(tipsPage.body)).toEqual(ids(tips.slice(8, 12)));
    expect(tipsPage.headers.get('pagination-page')).toBe('2');
  });

  it('orders ASC / DESC by id and draws at random with RANDOM or RAND', async () => {
    expect(ids((await get('/v1/facts?limit=3&order=DESC')).body)).toEqual(ids(facts.slice(-3).reverse()));
    expect(ids((await get('/v1/facts?limit=3&page=1&order=desc')).body)).toEqual(ids(facts.slice(-6, -3).reverse()));
    expect(ids((await get('/v1/health-tips?limit=2&order=asc')).body)).toEqual(ids(tips.slice(0, 2)));
    const drawn = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const response = await get(`/v1/facts?limit=3&order=${i % 2 ? 'RAND' : 'random'}`);
      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(3);
      expect(new Set(ids(response.body)).size).toBe(3);
      for (const fact of response.body) drawn.add(fact.id);
    }
    // 8 draws of 3 out of 600+ facts: all from the first three would happen once in ~10^40 runs
    expect([...drawn].some((id) => !ids(facts.slice(0, 3)).includes(id))).toBe(true);
    expectEnvelope(await get('/v1/facts?order=SIDEWAYS'), 400, 'validation_failed');
  });
});

describe('the API key in the query string', () => {
  it('is accepted as an alternative to the header; the header wins; none at all is 403', async () => {
    const byQuery = await service.request('GET', `/v1/votes?api_key=${encodeURIComponent(key)}`, { key: null });
    expect(byQuery.status).toBe(200);
    const created = await service.request('POST', `/v1/votes?api_key=${encodeURIComponent(key)}`, { key: null, body: { image_id: 'qk-1', value: 1 } });
    expect(created.status).toBe(201);
    expectEnvelope(await service.request('GET', `/v1/votes?api_key=${key}x`, { key: null }), 403, 'invalid_api_key');
    expectEnvelope(await service.request('GET', `/v1/votes?api_key=${encodeURIComponent(key)}`, { key: 'wrong-key' }), 403, 'invalid_api_key');
    expectEnvelope(await service.request('GET', '/v1/votes?api_key=', { key: null }), 403, 'missing_api_key');
    const refused = await service.request('GET', `/v1/nowhere?api_key=${key}`, { key: null });
    expect(JSON.stringify(refused.body)).not.toContain(key);
    const openapi = (await service.request('GET', '/v1/openapi.json', { key: null })).body;
    expect(openapi.components.securitySchemes.apiKeyQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect(openapi.components.securitySchemes.apiKeyQuery.description).toMatch(/risk/i);
  });
});

describe('routes', () => {
  it('treat a trailing slash as the same route', async () => {
    await service.request('POST', '/v1/votes/', { key, body: { image_id: 'slash-1', value: 1 } });
    const plain = await get('/v1/votes');
    const slashed = await get('/v1/votes/');
    expect(slashed.status).toBe(200);
    expect(ids(slashed.body)).toEqual(ids(plain.body));
    expect(ids(slashed.body).length).toBeGreaterThan(0);
    const search = await get('/v1/breeds/search/?q=maine');
    expect(search.status).toBe(200);
    expect(search.body.map((breed: { name: string }) => breed.name)).toContain('Maine Coon');
    expect((await get('/v1/facts/fact-cat-001/')).body.id).toBe('fact-cat-001');
  });

  it('answer a wrong method on a known path with 405 and Allow, an unknown path with 404', async () => {
    const put = await service.request('PUT', '/v1/votes', { key, body: {} });
    expectEnvelope(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    const one = await service.request('POST', '/v1/votes/123/', { key, body: {} });
    expectEnvelope(one, 405, 'method_not_allowed');
    expect(one.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    const reference = await service.request('DELETE', '/v1/breeds/abys', { key });
    expect(reference.status).toBe(405);
    expect(reference.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expectEnvelope(await service.request('PUT', '/v1/no-such-thing', { key }), 404, 'route_not_found');
    expectEnvelope(await service.request('GET', '/v1/votes/123/extra', { key }), 404, 'route_not_found');
  });
});

describe('languages', () => {
  const translated = facts.find((fact) => fact.translations?.de && fact.translations.fr) as Fact;

  it('take the language part of a BCP 47 tag, any case; a language we lack is English; only malformed is 400', async () => {
    expect(translated).toBeDefined();
    for (const lang of ['de', 'DE', 'de-DE', 'de-at', 'de_CH', 'De-Latn-DE']) {
      const response = await get(`/v1/facts/${translated.id}?lang=${lang}`);
      expect(response.status, lang).toBe(200);
      expect(response.body.title).toBe(translated.translations?.de?.title);
      expect(response.body.language).toBe('de');
      expect(response.headers.get('content-language')).toBe('de');
    }
    for (const lang of ['it', 'pt-BR', 'zh-Hant-TW', 'en-GB']) {
      const response = await get(`/v1/facts/${translated.id}?lang=${lang}`);
      expect(response.status, lang).toBe(200);
      expect(response.body.title).toBe(translated.title);
      expect(response.body.language).toBe('en');
      expect(response.headers.get('content-language')).toBe('en');
    }
    for (const lang of ['d', 'de--DE', 'de!', '12', 'de-DE-toolongsubtag', '']) {
      const path = `/v1/facts/${translated.id}?lang=${encodeURIComponent(lang)}`;
      if (lang === '') continue; // an empty value is the parameter left out by many clients
      expectEnvelope(await get(path), 400, 'validation_failed');
    }
    expect((await get('/v1/breeds/abys?lang=FR')).body.language).toBe('fr');
    expect((await get('/v1/votes?lang=de-DE')).status).toBe(200);
    expectEnvelope(await get('/v1/votes?lang=%3Cscript%3E'), 400, 'validation_failed');
  });

  it('honour Accept-Language when lang is absent (quality values, region tags), lang winning', async () => {
    const path = `/v1/facts/${translated.id}`;
    const cases: [Record<string, string>, string, string][] = [
      [{ 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' }, '', 'fr'],
      [{ 'accept-language': 'it, de;q=0.5, en;q=0.1' }, '', 'de'],
      [{ 'accept-language': 'it, pt' }, '', 'en'],
      [{ 'accept-language': 'de;q=0, es' }, '', 'es'],
      [{ 'accept-language': 'de' }, '?lang=fr', 'fr'],
      [{ 'accept-language': '%%%garbage' }, '', 'en'],
      [{}, '', 'en'],
    ];
    for (const [headers, query, expected] of cases) {
      const response = await get(`${path}${query}`, headers);
      expect(response.status).toBe(200);
      expect(response.body.language, JSON.stringify(headers)).toBe(expected);
      expect(response.headers.get('content-language')).toBe(expected);
      expect(response.headers.get('vary')).toMatch(/accept-language/i);
    }
  });

  it('mark every item with the language it is in, and Content-Language with every language served', async () => {
    const lists = ['/v1/facts?limit=100&lang=de', '/v1/facts?limit=100&page=3&lang=es', '/v1/health-tips?limit=50&lang=fr', '/v1/breeds?limit=100&lang=de', '/v1/breeds/search?q=a&limit=50&lang=es'];
    for (const path of lists) {
      const response = await get(path);
      expect(response.status).toBe(200);
      const requested = new URL(path, 'http://x').searchParams.get('lang') as string;
      const served = new Set<string>(response.body.map((item: { language: string }) => item.language));
      for (const language of served) expect([requested, 'en']).toContain(language);
      const header = (response.headers.get('content-language') as string).split(', ');
      expect(new Set(header)).toEqual(served);
      if (served.size > 1) expect(header[0]).toBe(requested);
    }
    // against the data files: a fact is in German exactly when it has a German translation
    const page = await get('/v1/facts?limit=100&lang=de');
    for (const fact of page.body) {
      const record = factById.get(fact.id) as Fact;
      expect(fact.language).toBe(record.translations?.de ? 'de' : 'en');
      expect(fact.fact).toBe(record.translations?.de?.fact ?? record.fact);
    }
  });
});

describe('responses', () => {
  it('are compressed with br or gzip as Accept-Encoding asks, and identical once decoded', async () => {
    const url = `${service.url}/v1/breeds`;
    const identity = await rawRequest(url, { headers: { 'x-api-key': key } });
    const plain = Buffer.from(await identity.body.arrayBuffer());
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(plain.length).toBeGreaterThan(100_000);
    for (const [accept, encoding, decode] of [
      ['br', 'br', brotliDecompressSync],
      ['gzip, deflate', 'gzip', gunzipSync],
      ['gzip;q=0.5, br;q=1', 'br', brotliDecompressSync],
      ['br;q=0.2, gzip', 'gzip', gunzipSync],
    ] as const) {
      for (let round = 0; round < 2; round++) {
        const response = await rawRequest(url, { headers: { 'x-api-key': key, 'accept-encoding': accept } });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-encoding']).toBe(encoding);
        expect(String(response.headers.vary)).toMatch(/accept-encoding/i);
        const bytes = Buffer.from(await response.body.arrayBuffer());
        expect(bytes.length).toBeLessThan(plain.length / 4);
        expect(decode(bytes).equals(plain)).toBe(true);
      }
    }
    // answers built per request go through the compress plugin
    const list = await rawRequest(`${service.url}/v1/facts?limit=50`, { headers: { 'x-api-key': key, 'accept-encoding': 'gzip' } });
    expect(list.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(Buffer.from(await list.body.arrayBuffer())).toString('utf8'))).toHaveLength(50);
  });

  it('carry an ETag on reference reads and answer a matching If-None-Match with 304', async () => {
    for (const path of ['/v1/breeds', '/v1/breeds?limit=5&lang=de', '/v1/breeds/abys', '/v1/facts?limit=20', '/v1/health-tips/breed/mcoo', '/v1/categories', '/v1/breeds/bans/countries']) {
      const first = await rawRequest(`${service.url}${path}`, { headers: { 'x-api-key': key, 'accept-encoding': 'br' } });
      await first.body.arrayBuffer();
      expect(first.statusCode).toBe(200);
      const etag = first.headers.etag as string;
      expect(etag, path).toMatch(/^W\/".+"$/);
      const again = await rawRequest(`${service.url}${path}`, { headers: { 'x-api-key': key, 'accept-encoding': 'br', 'if-none-match': etag } });
      expect(again.statusCode, path).toBe(304);
      expect((await again.body.arrayBuffer()).byteLength).toBe(0);
      const stale = await rawRequest(`${service.url}${path}`, { headers: { 'x-api-key': key, 'if-none-match': 'W/"something-else"' } });
      expect(stale.statusCode).toBe(200);
      await stale.body.arrayBuffer();
    }
    const failed = await get('/v1/facts?limit=0');
    expect(failed.status).toBe(400);
    expect(failed.headers.get('etag')).toBeNull();
    const english = (await get('/v1/breeds/abys')).headers.get('etag');
    const german = (await get('/v1/breeds/abys?lang=de')).headers.get('etag');
    expect(english).not.toBe(german);
  });

  it('declare their headers in the OpenAPI document', async () => {
    const openapi = (await service.request('GET', '/v1/openapi.json', { key: null })).body;
    for (const path of ['/v1/votes', '/v1/favourites', '/v1/facts', '/v1/breeds/{breedId}/facts', '/v1/health-tips', '/v1/breeds', '/v1/breeds/search', '/v1/categories', '/v1/accounts/usage']) {
      const headers = openapi.paths[path].get.responses['200'].headers;
      expect(Object.keys(headers), path).toEqual(expect.arrayContaining(['Pagination-Count', 'Pagination-Page', 'Pagination-Limit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
      expect(headers['Pagination-Count'].schema.type).toBe('integer');
      expect(Object.keys(openapi.paths[path].get.responses['429'].headers)).toContain('Retry-After');
    }
    expect(Object.keys(openapi.paths['/v1/votes/{id}'].get.responses['200'].headers)).not.toContain('Pagination-Count');
    for (const path of ['/v1/breeds', '/v1/breeds/{id}', '/v1/facts', '/v1/health-tips/{id}', '/v1/categories', '/v1/breeds/bans/country']) {
      expect(Object.keys(openapi.paths[path].get.responses['200'].headers), path).toContain('ETag');
      expect(openapi.paths[path].get.responses['304'], path).toBeDefined();
    }
    expect(openapi.paths['/v1/votes'].get.responses['304']).toBeUndefined();
    expect(Object.keys(openapi.paths['/v1/votes'].post.responses['201'].headers)).toContain('RateLimit-Remaining');
  });
});

describe('usage', () => {
  it('counts every record created in the window, deleted ones included', async () => {
    const account = (await service.createAccount()).api_key;
    const as = (method: string, path: string, body?: unknown) => service.request(method, path, { key: account, body });
    const votes = [];
    for (const [image, subId] of [['u-1', 'alice'], ['u-2', 'alice'], ['u-3', 'bob']]) votes.push((await as('POST', '/v1/votes', { image_id: image, value: 1, sub_id: subId })).body.id);
    const favourites = [];
    for (const [image, subId] of [['u-1', 'alice'], ['u-2', 'bob']]) favourites.push((await as('POST', '/v1/favourites', { image_id: image, sub_id: subId })).body.id);
    expect((await as('DELETE', `/v1/votes/${votes[0]}`)).status).toBe(200);
    expect((await as('DELETE', `/v1/votes/${votes[2]}`)).status).toBe(200);
    expect((await as('DELETE', `/v1/favourites/${favourites[1]}`)).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const usage = await as('GET', `/v1/accounts/usage?start_date=${today}&end_date=${today}`);
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual([
      { sub_id: 'alice', images: 0, votes: 2, favourites: 1, pets: 0 },
      { sub_id: 'bob', images: 0, votes: 1, favourites: 1, pets: 0 },
    ]);
    const future = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    expect((await as('GET', `/v1/accounts/usage?start_date=${future}`)).body).toEqual([]);
    // another account's records are not counted
    expect((await service.request('GET', '/v1/accounts/usage', { key })).body.some((row: { sub_id: string }) => row.sub_id === 'alice')).toBe(false);
  });
});

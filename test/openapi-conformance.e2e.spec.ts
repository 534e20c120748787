import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import sharp from 'sharp';
import addFormats from 'ajv-formats';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

/**
 * What the service sends matches what its OpenAPI document says, including nullability: every
 * GET operation of the served document is called (path parameters taken from the list above the
 * path, or from PARAM_SAMPLES), and the status, the body (against the documented schema, with
 * Ajv's JSON Schema 2020-12, the dialect of OpenAPI 3.1) and the Pagination-* / RateLimit-* /
 * ETag headers (on a success sent if and only if documented) are checked. Data is made first so that nullable
 * fields appear both ways (votes with and without sub_id and country_code, national and regional
 * laws), and the reference lists are read whole in every language. The answers of the writes made
 * on the way are checked too. A GET operation that cannot be called fails the suite: add a
 * PARAM_SAMPLES entry or data for it.
 */

/** Path parameter values that cannot be read off a list above the path. */
const PARAM_SAMPLES: Record<string, string> = { breedId: 'abys', speciesId: '1' };
/** Required query parameters, by path. */
const QUERY_SAMPLES: Record<string, string> = { '/v1/breeds/bans/country': 'country=US', '/v1/calculators/calories': 'weight_kg=4.5&species_id=1' };
const LANGUAGES = ['en', 'es', 'fr', 'de'];

type Operation = { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }> };
type Spec = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

let service: TestService;
let key: string;
let accountId: string;
let spec: Spec;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);

const pointer = (...tokens: string[]) => tokens.map((token) => encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

/** Checks one answer against the document; returns the problems found (empty when it conforms). */
const conformance = (path: string, method: string, url: string, response: { status: number; headers: Headers; body: unknown }): string[] => {
  const operation = spec.paths[path]?.[method];
  if (!operation) return [`${method.toUpperCase()} ${path} is not in the document`];
  const documented = operation.responses[String(response.status)];
  const where = `${method.toUpperCase()} ${url} → ${response.status}`;
  if (!documented) return [`${where}: status not documented`];
  const problems: string[] = [];
  // A body is sent in a media type the document names for this answer (wildcards as `video/*`).
  const sentType = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  if (sentType && response.status !== 304) {
    const documentedTypes = Object.keys(documented.content ?? {});
    const named = documentedTypes.some((type) => type === sentType || (type.endsWith('/*') && sentType.startsWith(type.slice(0, -1))));
    if (!named) problems.push(`${where}: Content-Type ${sentType} not documented (${documentedTypes.join(', ') || 'no content'})`);
  }
  if (documented.content?.['application/json']) {
    const validate = ajv.getSchema(`openapi.json#/${pointer('paths', path, method, 'responses', String(response.status), 'content', 'application/json', 'schema')}`);
    if (!validate) return [`${where}: no schema to validate with`];
    if (!validate(response.body)) {
      problems.push(...(validate.errors ?? []).slice(0, 5).map((error) => `${where}: body${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`));
    }
  }
  for (const name of ['Pagination-Count', 'Pagination-Page', 'Pagination-Limit', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'ETag']) {
    const declared = Object.keys(documented.headers ?? {}).some((header) => header.toLowerCase() === name.toLowerCase());
    const sent = response.headers.get(name);
    // A success sends exactly the documented headers; an error may leave one out (a request refused
    // before the rate limiter counted it carries no RateLimit-*), but sends none undocumented.
    if (sent !== null && !declared) problems.push(`${where}: header ${name} sent but not documented`);
    if (sent === null && declared && response.status < 300) problems.push(`${where}: header ${name} documented but not sent`);
    if (sent !== null && name !== 'ETag' && !/^\d+$/.test(sent)) problems.push(`${where}: header ${name} is not an integer: ${sent}`);
  }
  return problems;
};

const call = async (method: string, path: string, url: string, options: { body?: unknown; key?: string | null } = {}) => {
  const response = await service.request(method.toUpperCase(), url, { key: options.key === undefined ? (path.startsWith('/v1/admin') ? ADMIN_KEY : key) : options.key, body: options.body });
  return { response, problems: conformance(path, method, url, response) };
};

const problems: string[] = [];
const check = async (method: string, path: string, url: string, options: { body?: unknown; key?: string | null; status?: number } = {}) => {
  const { response, problems: found } = await call(method, path, url, options);
  problems.push(...found);
  if (options.status !== undefined) expect(response.status, `${method} ${url}: ${JSON.stringify(response.body)}`).toBe(options.status);
  return response;
};

beforeAll(async () => {
  service = await startTestService();
  spec = (await service.request('GET', '/v1/openapi.json')).body;
  ajv.addSchema(spec as object, 'openapi.json');
  const account = await service.createAccount();
  key = account.api_key;
  accountId = account.account_id;
});
afterAll(async () => {
  await service?.dispose();
});

describe('every documented response matches the served OpenAPI document', () => {
  it('writes answer as documented, with nullable fields both filled and empty', async () => {
    await check('post', '/v1/votes', '/v1/votes', { body: { image_id: 'conf-1', value: 1 }, status: 201 });
    await check('post', '/v1/votes', '/v1/votes', { body: { image_id: 'conf-2', value: -1, sub_id: 'user-1', country_code: 'DE' }, status: 201 });
    await check('post', '/v1/favourites', '/v1/favourites', { body: { image_id: 'conf-1' }, status: 201 });
    await check('post', '/v1/favourites', '/v1/favourites', { body: { image_id: 'conf-2', sub_id: 'user-1' }, status: 201 });
    await check('post', '/v1/favourites', '/v1/favourites', { body: { image_id: 'conf-2', sub_id: 'user-1' }, status: 409 });
    const hook = await check('post', '/v1/webhooks', '/v1/webhooks', { body: { url: 'https://hooks.example.invalid/in', enabled_events: ['vote.created'] }, status: 201 });
    await check('post', '/v1/webhooks/{id}/rotate-secret', `/v1/webhooks/${hook.body.id}/rotate-secret`, { status: 200 });
    await check('patch', '/v1/accounts/capabilities', '/v1/accounts/capabilities', { body: { capabilities: { calculators: true } }, status: 200 });
    await check('post', '/v1/votes', '/v1/votes', { body: { image_id: 'conf-3', value: 1, sub_id: 'user-2' }, status: 201 });
    const doomed = await check('post', '/v1/votes', '/v1/votes', { body: { image_id: 'conf-4', value: 1 }, status: 201 });
    await check('delete', '/v1/votes/{id}', `/v1/votes/${doomed.body.id}`, { status: 200 });
    await check('get', '/v1/votes/{id}', `/v1/votes/${doomed.body.id}`, { status: 404 });
    await check('post', '/v1/votes', '/v1/votes', { body: { image_id: 'conf-5', value: 7 }, status: 400 });
    await check('get', '/v1/votes', '/v1/votes', { key: 'not-a-key', status: 403 });
    expect(problems).toEqual([]);
  });

  it('every GET operation answers as documented', async () => {
    problems.length = 0;
    const notCalled: string[] = [];
    const called: string[] = [];
    const firstId = new Map<string, string | undefined>();
    const idFromList = async (listPath: string, listUrl: string): Promise<string | undefined> => {
      if (!firstId.has(listUrl)) {
        const response = spec.paths[listPath]?.get ? await check('get', listPath, listUrl) : undefined;
        const first = Array.isArray(response?.body) ? response.body[0] : undefined;
        firstId.set(listUrl, first && (typeof first.id === 'string' || typeof first.id === 'number') ? String(first.id) : undefined);
      }
      return firstId.get(listUrl);
    };
    const paths = Object.keys(spec.paths).filter((path) => spec.paths[path].get).sort((a, b) => a.length - b.length);
    // Operations whose path parameters no list above them gives: the auditor's and operator's routes.
    const verify = await service.request('POST', '/v1/admin/operations/verify', { key: ADMIN_KEY, body: { projection: 'votes' } });
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#a0522d' } }).png().toBuffer();
    const image = await check('post', '/v1/images/upload', '/v1/images/upload', { body: { type: 'base64', image: png.toString('base64') }, status: 201 });
    // similar images need the image labelled (its embedding)
    for (let waited = 0; waited < 60_000; waited += 200) {
      if ((await service.request('GET', `/v1/images/${image.body.id}/status`, { key })).body.status === 'labelled') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await check('post', '/v1/images/{imageId}/public-requests', `/v1/images/${image.body.id}/public-requests`, { body: { request_message: 'for the gallery' }, status: 201 });
    const pet = await check('post', '/v1/pets', '/v1/pets', { body: { name: 'Conformance', breed_id: 'abys', age_years: 2, age_months: 3 }, status: 201 });
    // A photo of the pet: care tips need one, and its file is served.
    const photoForm = new FormData();
    photoForm.append('images', new Blob([png], { type: 'image/png' }), 'pet.png');
    const photos = await fetch(`${service.url}/v1/pets/${pet.body.id}/images`, { method: 'POST', headers: { 'x-api-key': key }, body: photoForm });
    expect(photos.status).toBe(201);
    const petPhotoId = ((await photos.json()) as { id: string }[])[0].id;
    const pathUrls: Record<string, string> = {
      '/v1/admin/streams/{stream}': `/v1/admin/streams/account-${accountId}`,
      '/v1/admin/streams/{stream}/state': `/v1/admin/streams/account-${accountId}/state`,
      '/v1/admin/accounts/{id}/history': `/v1/admin/accounts/${accountId}/history`,
      '/v1/admin/operations/{id}': `/v1/admin/operations/${verify.body.id}`,
      '/v1/images/{id}/status': `/v1/images/${image.body.id}/status`,
      '/v1/images/{id}/analysis': `/v1/images/${image.body.id}/analysis`,
      '/v1/images/{id}/similar': `/v1/images/${image.body.id}/similar?limit=5`,
      '/v1/images/files/{file}': new URL(image.body.url).pathname,
      // A reading needs a pet video (made with ffmpeg in test/pet-analyses.e2e.spec.ts); here its 404 is checked.
      '/v1/pets/{petId}/respiratory-rate/{resultId}': `/v1/pets/${pet.body.id}/respiratory-rate/no-such-reading`,
      // A review needs a scored pet (test/body-condition.e2e.spec.ts); here its 404 is checked.
      '/v1/body-condition-score/reviews/{reviewId}': '/v1/body-condition-score/reviews/no-such-review',
      '/v1/pets/{petId}/care-tips': `/v1/pets/${pet.body.id}/care-tips`,
      '/v1/pets/{petId}/health-tips': `/v1/pets/${pet.body.id}/health-tips?include_sources=true`,
      '/v1/pets/{petId}/images/{mediaId}/file': `/v1/pets/${pet.body.id}/images/${petPhotoId}/file`,
    };
    for (const path of paths) {
      if (pathUrls[path]) {
        // An image file is fetched as a browser does, without a key.
        const response = await check('get', path, pathUrls[path], path === '/v1/images/files/{file}' ? { key: null } : {});
        if (response.status === 200 || ((path.endsWith('{resultId}') || path.endsWith('{reviewId}')) && response.status === 404)) called.push(path);
        continue;
      }
      // Each parameter from the list above it (`/v1/votes/{id}` ← `GET /v1/votes`), else from the samples.
      let url = '';
      let fillable = true;
      for (const segment of path.split('/').slice(1)) {
        const param = /^\{(.+)\}$/.exec(segment)?.[1];
        if (!param) {
          url += `/${segment}`;
          continue;
        }
        const listPath = path.slice(0, path.indexOf(`/{${param}}`));
        const value = PARAM_SAMPLES[param] ?? (await idFromList(listPath, url));
        if (value === undefined) {
          fillable = false;
          break;
        }
        url += `/${encodeURIComponent(value)}`;
      }
      if (!fillable) {
        notCalled.push(`GET ${path}`);
        continue;
      }
      const query = QUERY_SAMPLES[path];
      const response = await check('get', path, query ? `${url}?${query}` : url);
      if (response.status === 200) called.push(path);
    }
    expect(notCalled, 'GET operations this suite could not call: add PARAM_SAMPLES or data for them').toEqual([]);
    expect(called).toEqual(paths);
    expect(problems).toEqual([]);
  });

  it('reference lists conform whole, in every language', async () => {
    problems.length = 0;
    for (const lang of LANGUAGES) {
      await check('get', '/v1/breeds', `/v1/breeds?lang=${lang}`, { status: 200 });
      await check('get', '/v1/breeds', `/v1/breeds?extinct=true&lang=${lang}`, { status: 200 });
      for (const [path, base] of [
        ['/v1/facts', '/v1/facts'],
        ['/v1/health-tips', '/v1/health-tips'],
      ]) {
        for (let page = 0; ; page++) {
          const response = await check('get', path, `${base}?limit=100&page=${page}&include_sources=true&lang=${lang}`, { status: 200 });
          if (response.body.length < 100) break;
        }
      }
    }
    const countries = await check('get', '/v1/breeds/bans/countries', '/v1/breeds/bans/countries', { status: 200 });
    expect(countries.body.length).toBeGreaterThan(0);
    let national = 0;
    let regional = 0;
    for (const country of countries.body) {
      const answer = await check('get', '/v1/breeds/bans/country', `/v1/breeds/bans/country?country=${country.iso_code}&limit=100`, { status: 200 });
      national += answer.body.legislation.length;
      regional += answer.body.jurisdictions.length;
      for (const law of answer.body.legislation) {
        for (const banned of law.banned_breeds.slice(0, 1)) await check('get', '/v1/breeds/{breedId}/legislation', `/v1/breeds/${banned.breed_id}/legislation`, { status: 200 });
      }
    }
    // national laws carry jurisdiction: null, regional ones an object: both shapes were checked
    expect(national).toBeGreaterThan(0);
    expect(regional).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('describes every image with the one Image schema, and every image answered validates against it', async () => {
    problems.length = 0;
    const schemas = (spec.components as { schemas: Record<string, any> }).schemas;
    expect(schemas.Image?.properties).toHaveProperty('childImages');
    // No response schema describes an image on its own (an object with an image's url, size and type): each refers to #/components/schemas/Image.
    const inline: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      if (properties && ['url', 'width', 'height', 'mime_type'].every((field) => field in properties)) inline.push(where);
      for (const [name, child] of Object.entries(node)) walk(child, `${where}/${name}`);
    };
    for (const [path, methods] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(methods)) walk(operation.responses, `${method.toUpperCase()} ${path}`);
    }
    expect(inline, 'response schemas describing an image inline instead of referring to the Image schema').toEqual([]);
    const refersToImage = (path: string, method: string, status: string) => JSON.stringify(spec.paths[path][method].responses[status]).includes('"#/components/schemas/Image"');
    for (const [path, method, status] of [
      ['/v1/images/search', 'get', '200'],
      ['/v1/images', 'get', '200'],
      ['/v1/images/{id}', 'get', '200'],
      ['/v1/images/upload', 'post', '201'],
      ['/v1/images/upload-sync', 'post', '201'],
      ['/v1/votes', 'get', '200'],
      ['/v1/votes', 'post', '201'],
      ['/v1/favourites', 'get', '200'],
      ['/v1/favourites/{id}', 'get', '200'],
      ['/v1/images/{imageId}/public-requests', 'get', '200'],
      ['/v1/images/{imageId}/public-requests/decision', 'post', '200'],
      ['/v1/breeds/search', 'get', '200'],
    ]) {
      expect(refersToImage(path, method, status), `${method.toUpperCase()} ${path} ${status}`).toBe(true);
    }
    // Answers that carry a known image, checked against the document (and so against the Image schema).
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#336699' } }).png().toBuffer();
    const image = await check('post', '/v1/images/upload', '/v1/images/upload', { body: { type: 'base64', image: png.toString('base64'), sub_id: 'shape' }, status: 201 });
    const vote = await check('post', '/v1/votes', '/v1/votes', { body: { image_id: image.body.id, value: 1 }, status: 201 });
    expect(vote.body.image.url).toBe(image.body.url);
    await check('post', '/v1/favourites', '/v1/favourites', { body: { image_id: image.body.id }, status: 201 });
    await check('get', '/v1/votes/{id}', `/v1/votes/${vote.body.id}`, { status: 200 });
    await check('get', '/v1/favourites', '/v1/favourites', { status: 200 });
    await check('get', '/v1/images/{id}', `/v1/images/${image.body.id}`, { status: 200 });
    // similar images need the image labelled (its embedding)
    for (let waited = 0; waited < 60_000; waited += 200) {
      if ((await service.request('GET', `/v1/images/${image.body.id}/status`, { key })).body.status === 'labelled') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await check('post', '/v1/images/{imageId}/public-requests', `/v1/images/${image.body.id}/public-requests`, { body: {}, status: 201 });
    await check('post', '/v1/images/{imageId}/public-requests/decision', `/v1/images/${image.body.id}/public-requests/decision`, { body: { status: 'approved' }, key: ADMIN_KEY, status: 200 });
    await check('get', '/v1/breeds/search', '/v1/breeds/search?q=a&limit=20&attach_image=1', { status: 200 });
    expect(problems).toEqual([]);
  });

  it('finds a mismatch when there is one (the checker can fail)', () => {
    const headers = new Headers({ 'RateLimit-Limit': '10', 'RateLimit-Remaining': '9', 'RateLimit-Reset': '60' });
    const vote = { id: 1, image_id: 'x', sub_id: null, created_at: new Date().toISOString(), value: 1, country_code: null, image: { id: 'x', url: null } };
    expect(conformance('/v1/votes/{id}', 'get', '/v1/votes/1', { status: 200, headers, body: vote })).toEqual([]);
    expect(conformance('/v1/votes/{id}', 'get', '/v1/votes/1', { status: 200, headers, body: { ...vote, image_id: null } }).join()).toContain('image_id');
    expect(conformance('/v1/votes/{id}', 'get', '/v1/votes/1', { status: 200, headers: new Headers({ ...Object.fromEntries(headers), 'Pagination-Count': '1' }), body: vote }).join()).toContain(
      'Pagination-Count sent but not documented',
    );
    expect(conformance('/v1/votes', 'get', '/v1/votes', { status: 200, headers, body: [] }).join()).toContain('Pagination-Count documented but not sent');
    expect(conformance('/v1/votes', 'get', '/v1/votes', { status: 418, headers, body: {} }).join()).toContain('status not documented');
  });
});

import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { ALL_FEATURES } from '../domain/accounts/features.ts';
import type { RouteEntry } from '../http/route-table.ts';
import { recordFigures } from './harness-figures.ts';
import { newEventId } from '../infrastructure/ids.ts';

/**
 * The authorization matrix (OWASP API1 broken object level authorization, API5 broken function
 * level authorization), generated from the live route table: a route added anywhere is covered
 * without new test code.
 *
 * For every operation: no key → 403, unknown key → 403, an inactive account's key → 401, the admin
 * key on an account operation → 403; an admin operation with an account key → 403; an account
 * lacking the route's feature → 403 feature_not_enabled, the feature switched off → 403
 * capability_disabled. For every operation with a path parameter under a prefix that holds
 * per-account resources, another account's resource id → 403 forbidden (docs/api.md: "Another
 * account's resource"). Such a prefix needs an entry in RESOURCE_CREATORS — or, for public
 * reference data, in PUBLIC_REFERENCE_PREFIXES — or the suite fails.
 */

/** Routes anyone may call without a key. Adding one is a security decision: list it here. */
const PUBLIC_ROUTES = new Set([
  'GET /v1/openapi.json',
  'GET /health',
  'GET /ready',
  // The operations console's static page, script and style: no data; it asks for the admin key.
  'GET /v1/admin/console',
  'GET /v1/admin/console/console.js',
  'GET /v1/admin/console/console.css',
  // An image's public url: browsers load it without a key; the address is an unguessable token.
  'GET /v1/images/files/:file',
]);
const isPublicRoute = (route: RouteEntry) =>
  PUBLIC_ROUTES.has(`${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`) || route.url === '/v1/docs' || route.url.startsWith('/v1/docs/');

/** Reference data: the same for every account, so an id in its path names nobody's resource. */
const PUBLIC_REFERENCE_PREFIXES = new Set(['breeds', 'facts', 'health-tips', 'categories', 'legislation', 'species', 'colours']);

type Creator = (service: TestService, key: string) => Promise<Record<string, string>>;
const created = async (service: TestService, key: string, path: string, body: unknown, field = 'id') => {
  const response = await service.request('POST', path, { key, body });
  if (response.status !== 201) throw new Error(`creating ${path} for the matrix failed: ${response.status} ${JSON.stringify(response.body)}`);
  return String(response.body[field]);
};

/**
 * How to make a resource of one account, by the first path segment after /v1; it returns the
 * path parameter values naming it. A new per-account resource with `/{id}` routes adds its line.
 */
const RESOURCE_CREATORS: Record<string, Creator> = {
  votes: async (service, key) => ({ id: await created(service, key, '/v1/votes', { image_id: 'matrix-image', value: 1 }) }),
  // DELETE /v1/vote/{id}: TheCatAPI's singular path for a vote.
  vote: async (service, key) => ({ id: await created(service, key, '/v1/votes', { image_id: 'matrix-image', value: 1 }) }),
  favourites: async (service, key) => ({
    id: await created(service, key, '/v1/favourites', { image_id: `matrix-${Math.random().toString(36).slice(2)}` }),
  }),
  // An uploaded image with a breed tagged and a pending public request, so every /images/{id}/… route has something to refuse.
  images: async (service, key) => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 120, b: 40 } } }).png().toBuffer();
    const id = await created(service, key, '/v1/images/upload', { type: 'base64', image: png.toString('base64'), breed_ids: ['abys'] });
    await created(service, key, `/v1/images/${id}/public-requests`, {});
    return { id, imageId: id, breedId: 'abys' };
  },
  webhooks: async (service, key) => ({
    id: await created(service, key, '/v1/webhooks', { url: 'http://127.0.0.1:9/matrix-hook', enabled_events: ['vote.created'] }),
  }),
  pets: async (service, key) => ({ petId: await created(service, key, '/v1/pets', { name: 'matrix pet' }) }),
  // A vet review is opened by the scoring processor; here it is appended for a pet of the account (the route under test only reads it).
  'body-condition-score': async (service, key) => {
    const petId = await created(service, key, '/v1/pets', { name: 'matrix reviewed pet' });
    const [registered] = await service.adapters.eventStore.readStream(`pet-${petId}`);
    const accountId = String((registered.data as { account_id: string }).account_id);
    const reviewId = `matrix${Math.random().toString(36).slice(2)}`;
    const data = {
      review_id: reviewId, analysis_id: reviewId, pet_id: petId, account_id: accountId, sub_id: null, external_owner_id: null, trigger: 'requested', note: null,
      score: 5, confidence: 0.7, confidence_reason: 'matrix', condition_flags: ['ideal'], reasons: 'matrix', requested_at: new Date().toISOString(),
    };
    const metadata = { account_id: accountId, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: new Date().toISOString(), schema_version: 1 };
    await service.adapters.eventStore.append(`bcsreview-${reviewId}`, [{ id: newEventId(), type: 'BcsReviewRequested', data, metadata }], { expectedRevision: 'no_stream' });
    return { reviewId };
  },
};

/** Bodies for operations whose body the schema sampler cannot make valid, by `METHOD url`. */
const BODY_SAMPLES: Record<string, unknown> = {};

/** A minimal value the schema accepts (required properties only), for routes with a body. */
const sampleOf = (schema: any): unknown => {
  if (!schema || typeof schema !== 'object') return {};
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) return sampleOf(schema.anyOf[0]);
  switch (schema.type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name: string) => [name, sampleOf(schema.properties?.[name])]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uri' || schema.format === 'url') return 'http://127.0.0.1:9/matrix';
      if (schema.format === 'email') return 'matrix@example.org';
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'date') return new Date().toISOString().slice(0, 10);
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      return {};
  }
};

const placeholderFor = (route: RouteEntry, name: string): string => {
  const schema = (route.schema?.params as any)?.properties?.[name];
  return schema?.type === 'integer' || schema?.type === 'number' ? '1' : 'zz9';
};

const pathWith = (route: RouteEntry, values: Record<string, string>): string =>
  route.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? placeholderFor(route, name)));

const bodyFor = (route: RouteEntry): unknown =>
  BODY_SAMPLES[`${route.method} ${route.url}`] ?? (route.schema?.body ? sampleOf(route.schema.body) : undefined);

const prefixOf = (route: RouteEntry) => route.url.split('/')[2] ?? '';

// The service and the route table exist before the tests are collected: one test per operation.
const service = await startTestService({ webhookAllowPrivateTargets: true });
const operations = service.app.routeTable.filter(
  (route) => route.method !== 'HEAD' && route.method !== 'OPTIONS' && !isPublicRoute(route) && route.url !== '*',
);
const accountOperations = operations.filter((route) => route.auth === 'account');
const adminOperations = operations.filter((route) => route.auth === 'admin');
const ownedOperations = accountOperations.filter((route) => route.params.length > 0 && !PUBLIC_REFERENCE_PREFIXES.has(prefixOf(route)));
const ownedResources: Record<string, Promise<Record<string, string>>> = {};
const figures = { operations: operations.length, cases: 0, ownership: 0, exemptPublicReference: 0 };

let owner: { account_id: string; api_key: string };
let other: { account_id: string; api_key: string };
let inactive: { account_id: string; api_key: string };
let featureless: { account_id: string; api_key: string };
let switchedOff: { account_id: string; api_key: string };

beforeAll(async () => {
  owner = await service.createAccount({ name: 'matrix owner' });
  other = await service.createAccount({ name: 'matrix other' });
  inactive = await service.createAccount({ name: 'matrix inactive' });
  featureless = await service.createAccount({ name: 'matrix featureless', features: [] });
  switchedOff = await service.createAccount({ name: 'matrix switched off' });
  expect((await service.request('POST', `/v1/admin/accounts/${inactive.account_id}/deactivate`, { key: ADMIN_KEY })).status).toBe(200);
  const off = Object.fromEntries(ALL_FEATURES.map((name) => [name, false]));
  expect((await service.request('PATCH', '/v1/accounts/capabilities', { key: switchedOff.api_key, body: { capabilities: off } })).status).toBe(200);
});

afterAll(async () => {
  figures.exemptPublicReference = accountOperations.filter((route) => route.params.length > 0).length - ownedOperations.length;
  const line =
    `authorization matrix: ${figures.operations} operations (${accountOperations.length} account, ${adminOperations.length} admin), ` +
    `${figures.cases} cases asserted, ${figures.ownership} cross-account (403) cases, ${figures.exemptPublicReference} reference-data operations exempt from ownership`;
  recordFigures('authorization-matrix', line);
  await service.dispose();
});

const call = async (route: RouteEntry, key: string | null, params: Record<string, string> = {}) => {
  figures.cases += 1;
  const body = bodyFor(route);
  return service.request(route.method, pathWith(route, params), { key, ...(body === undefined ? {} : { body }) });
};

describe('the route table', () => {
  it('has only the listed public routes', () => {
    const unlisted = service.app.routeTable.filter((route) => route.auth === 'public' && !isPublicRoute(route));
    expect(unlisted.map((route) => `${route.method} ${route.url}`)).toEqual([]);
  });

  it('documents every operation in the OpenAPI document, so the fuzzer reaches it, and nothing else', async () => {
    const document = (await service.request('GET', '/v1/openapi.json')).body;
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const live = operations.map((route) => `${route.method} ${route.path}`);
    // Public routes may be documented too (the image files are).
    const publicOperations = service.app.routeTable.filter(isPublicRoute).map((route) => `${route.method} ${route.path}`);
    expect(live.filter((operation) => !documented.includes(operation)), 'routes missing from /v1/openapi.json').toEqual([]);
    expect(documented.filter((operation) => !live.includes(operation) && !publicOperations.includes(operation)), 'documented operations without a route').toEqual([]);
  });

  it('knows how to make another account’s resource for every per-account route with a path parameter', () => {
    const missing = [...new Set(ownedOperations.map(prefixOf))].filter((prefix) => !RESOURCE_CREATORS[prefix]);
    expect(
      missing,
      `add a creator to RESOURCE_CREATORS in test/authorization-matrix.e2e.spec.ts for /v1/${missing.join(', /v1/')} ` +
        '(or list the prefix in PUBLIC_REFERENCE_PREFIXES if its data is the same for every account)',
    ).toEqual([]);
  });
});

describe.each(accountOperations.map((route) => [`${route.method} ${route.path}`, route] as const))('%s', (_name, route) => {
  it('answers 403 without a key, with an unknown key and with the admin key', async () => {
    expectEnvelope(await call(route, null), 403, 'missing_api_key');
    expectEnvelope(await call(route, 'live_not-a-key-of-anyone'), 403, 'invalid_api_key');
    expectEnvelope(await call(route, ADMIN_KEY), 403, 'invalid_api_key');
  });

  it('answers 401 for an inactive account’s key', async () => {
    expectEnvelope(await call(route, inactive.api_key), 401, 'account_inactive');
  });

  it.runIf(route.feature)('answers 403 when the account lacks the feature or switched it off', async () => {
    const lacking = expectEnvelope(await call(route, featureless.api_key), 403, 'feature_not_enabled');
    expect(lacking.message).toContain(route.feature);
    expectEnvelope(await call(route, switchedOff.api_key), 403, 'capability_disabled');
  });

  it.runIf(ownedOperations.includes(route))('answers 403 for another account’s resource', async () => {
    const prefix = prefixOf(route);
    const creator = RESOURCE_CREATORS[prefix];
    if (!creator) throw new Error(`no resource creator for /v1/${prefix} (see the route table test)`);
    // One resource per prefix: the other account's requests must not change it (403 before any effect).
    const params = await (ownedResources[prefix] ??= creator(service, owner.api_key));
    figures.ownership += 1;
    expectEnvelope(await call(route, other.api_key, params), 403, 'forbidden');
  });
});

describe.each(adminOperations.map((route) => [`${route.method} ${route.path}`, route] as const))('%s (admin)', (_name, route) => {
  it('answers 403 without a key, with an unknown key and with any account key', async () => {
    expectEnvelope(await call(route, null), 403, 'missing_api_key');
    expectEnvelope(await call(route, 'live_not-a-key-of-anyone'), 403, 'admin_only');
    expectEnvelope(await call(route, owner.api_key), 403, 'admin_only');
    expectEnvelope(await call(route, inactive.api_key), 403, 'admin_only');
  });
});

/**
 * Another account's identifiers never appear: the owner's end-user `sub_id`, its `account_id` and
 * the image's `original_filename` are the owner's (and admins') only. Another account that finds
 * the owner's public image — in search, by id, through its own votes and favourites on it, its
 * webhook deliveries, the breed it shows — calls every GET operation of the route table and
 * never sees them in any answer.
 */
describe('another account’s identifiers must not appear', () => {
  it('in any answer to another account, for the owner’s public image and every record of the other account about it', async () => {
    const secret = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const mustNotAppear = { sub_id: `owner-end-user-${secret}`, original_filename: `owner-file-${secret}.png`, account_id: owner.account_id };
    const png = await sharp({ create: { width: 24, height: 24, channels: 3, background: { r: 10, g: 200, b: 90 } } }).png().toBuffer();
    const upload = await service.request('POST', '/v1/images/upload', {
      key: owner.api_key,
      body: { type: 'base64', image: png.toString('base64'), sub_id: mustNotAppear.sub_id, original_filename: mustNotAppear.original_filename, breed_ids: ['abys'] },
    });
    expect(upload.status).toBe(201);
    // The owner sees its own fields (so the check below is not vacuous).
    expect(upload.body).toMatchObject({ sub_id: mustNotAppear.sub_id, original_filename: mustNotAppear.original_filename });
    const imageId = upload.body.id as string;
    expect((await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.api_key, body: {} })).status).toBe(201);
    expect((await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    while ((await service.request('GET', `/v1/images/${imageId}`, { key: other.api_key })).status !== 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));

    const answers: { what: string; body: unknown }[] = [];
    const hook = await service.request('POST', '/v1/webhooks', { key: other.api_key, body: { url: 'http://127.0.0.1:9/privacy', enabled_events: ['vote.created', 'favourite.created'] } });
    const vote = await service.request('POST', '/v1/votes', { key: other.api_key, body: { image_id: imageId, value: 1, sub_id: 'other-user' } });
    const favourite = await service.request('POST', '/v1/favourites', { key: other.api_key, body: { image_id: imageId } });
    expect([hook.status, vote.status, favourite.status]).toEqual([201, 201, 201]);
    expect(vote.body.image.url).toBe(upload.body.url);
    answers.push({ what: 'POST /v1/votes', body: vote.body }, { what: 'POST /v1/favourites', body: favourite.body });

    const paramsByPrefix: Record<string, Record<string, string>> = {
      images: { id: imageId, imageId, breedId: 'abys' },
      votes: { id: String(vote.body.id) },
      favourites: { id: String(favourite.body.id) },
      webhooks: { id: hook.body.id },
      breeds: { breedId: 'abys', id: 'abys' },
    };
    const queries: Record<string, string> = {
      '/v1/images/search': '?limit=100&include_categories=1&include_colours=1',
      '/v1/images': '?limit=100',
      '/v1/breeds/search': '?q=abys&attach_image=1',
      '/v1/favourites': '?attach_image=1',
    };
    const gets = accountOperations.filter((route) => route.method === 'GET');
    for (const route of gets) {
      const url = pathWith(route, paramsByPrefix[prefixOf(route)] ?? {}) + (queries[route.url] ?? '');
      const response = await service.request('GET', url, { key: other.api_key });
      answers.push({ what: `GET ${url} → ${response.status}`, body: response.body });
    }
    const searched = answers.find((answer) => answer.what.startsWith('GET /v1/images/search?'))!.body as { id: string; sub_id: unknown }[];
    expect(searched.find((image) => image.id === imageId), 'the public image is found').toMatchObject({ sub_id: null });
    // Nor can another account's end-user id be probed: sub_id filters the caller's own images only.
    const probe = await service.request('GET', `/v1/images/search?sub_id=${mustNotAppear.sub_id}&limit=100`, { key: other.api_key });
    expect(probe.status).toBe(200);
    expect(probe.body.map((image: { id: string }) => image.id)).not.toContain(imageId);
    const ownProbe = await service.request('GET', `/v1/images/search?sub_id=${mustNotAppear.sub_id}&limit=100`, { key: owner.api_key });
    expect(ownProbe.body.map((image: { id: string }) => image.id)).toContain(imageId);
    for (const { what, body } of answers) {
      const text = JSON.stringify(body);
      for (const [field, value] of Object.entries(mustNotAppear)) expect(text.includes(value), `${what} shows the owner's ${field}`).toBe(false);
    }
  });
});

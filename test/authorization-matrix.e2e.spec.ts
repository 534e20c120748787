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

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { Collections, type AccountDoc, type ApiKeyDoc } from '../contracts/read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { inMemoryWritePositions, type WritePositions } from '../infrastructure/consistency/write-positions.ts';
import { sha256 } from '../infrastructure/ids.ts';
import { registerAuth } from './auth.ts';
import { registerErrorHandling } from './errors.ts';

/** The authentication hook over HTTP (inject), with the accounts projection played by hand. */
let readStore: ReadStore;
let positions: WritePositions;
let app: FastifyInstance;
const ADMIN = 'admin-key-0123456789abcdef';
const GOOD = 'live_good_key';

const account = (change: Partial<AccountDoc> = {}): AccountDoc => ({
  _id: 'a1', account_id: 'a1', name: 'a1', email: null, active: true, features: ['votes'], switched_off: [], created_at: '2024-01-01T00:00:00.000Z', ...change,
});

const build = async (failures = { maxFailures: 5, windowMs: 60_000 }) => {
  app = Fastify();
  registerErrorHandling(app);
  registerAuth(app, { readStore, eventStore: {} as never, adminApiKey: ADMIN, writePositions: positions, catchUpMs: 20, failures });
  app.get('/v1/things', async () => ({ ok: true }));
  app.get('/v1/admin/things', { config: { auth: 'admin' } }, async () => ({ ok: true }));
  await app.ready();
};
const get = (key: string, from = '10.0.0.1', url = '/v1/things') =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': key }, remoteAddress: from });

beforeEach(async () => {
  readStore = embeddedReadStore();
  positions = inMemoryWritePositions();
  await readStore.collection<AccountDoc>(Collections.accounts).upsert(account(), 1n);
  await readStore.collection<ApiKeyDoc>(Collections.apiKeys).upsert({ _id: sha256(GOOD), key_id: 'k1', account_id: 'a1', revoked: false }, 2n);
  await readStore.setCheckpoint('accounts', 2n);
});
afterEach(async () => {
  await app.close();
  await readStore.close();
});

describe('authentication while the accounts projection lags', () => {
  it('answers 503 consistency_timeout with Retry-After instead of accepting a key of a deactivated account', async () => {
    await build();
    expect((await get(GOOD)).statusCode).toBe(200);
    // Deactivated on the command side; the projection is held back.
    await positions.recordAccountChange('a1', 3n);
    const lagging = await get(GOOD);
    expect(lagging.statusCode).toBe(503);
    expect(lagging.headers['retry-after']).toBe('1');
    expect(lagging.json()).toMatchObject({ statusCode: 503, code: 'consistency_timeout', error: 'Service Unavailable' });
    // The projection arrives: the deactivation holds.
    await readStore.collection<AccountDoc>(Collections.accounts).upsert(account({ active: false }), 3n);
    await readStore.setCheckpoint('accounts', 3n);
    expect((await get(GOOD)).json()).toMatchObject({ statusCode: 401, code: 'account_inactive' });
  });
});

describe('failed-authentication budget per client address', () => {
  it('answers 429 with Retry-After once an address spent its failed attempts, and only for that address', async () => {
    await build();
    for (let i = 0; i < 5; i++) expect((await get(`live_guess_${i}`)).json().code).toBe('invalid_api_key');
    const limited = await get('live_guess_more');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'rate_limited', limit: 5 });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another address is unaffected.
    expect((await get('live_guess_x', '10.0.0.2')).json().code).toBe('invalid_api_key');
  });

  it('counts wrong admin keys too', async () => {
    await build();
    for (let i = 0; i < 5; i++) expect((await get(`not-the-admin-key-${i}`, '10.0.0.3', '/v1/admin/things')).statusCode).toBe(403);
    expect((await get('not-the-admin-key-x', '10.0.0.3', '/v1/admin/things')).statusCode).toBe(429);
  });

  it('never locks out a valid key: failing with it elsewhere spends nothing of its own, and a key known valid still works from the exhausted address', async () => {
    await build();
    expect((await get(GOOD, '10.0.0.1')).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) await get(`live_guess_${i}`, '10.0.0.1');
    expect((await get('live_guess_again', '10.0.0.1')).statusCode).toBe(429);
    expect((await get(GOOD, '10.0.0.1')).statusCode).toBe(200);
    expect((await get(GOOD, '10.0.0.9')).statusCode).toBe(200);
  });
});

describe('authentication after the read store lost writes', () => {
  it('answers an unknown key 503 store_unavailable while the store makes up for lost writes, then 403 again', async () => {
    // The store reports lost writes (an embedded COMMIT refused on a full disk): a key issued just
    // before may be one of them, so it is not called invalid until the projections had time to apply it again.
    let rollbacks = 0;
    readStore = new Proxy(readStore, {
      get: (target, property) => (property === 'rollbacks' ? rollbacks : Reflect.get(target, property)),
    });
    await build();
    expect((await get('live_unknown_key')).json()).toMatchObject({ statusCode: 403, code: 'invalid_api_key' });
    rollbacks += 1;
    const lost = await get('live_unknown_key');
    expect(lost.statusCode).toBe(503);
    expect(lost.headers['retry-after']).toBe('2');
    expect(lost.json()).toMatchObject({ code: 'store_unavailable' });
    // A known key is served as ever.
    expect((await get(GOOD)).statusCode).toBe(200);
  });
});

import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import Database from 'better-sqlite3';
import { MongoBulkWriteError, MongoClient, MongoNetworkError } from 'mongodb';
import { registerErrorHandling } from './errors.ts';
import { registerStoreReachability, STORAGE_FULL_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './unavailable.ts';
import { LOST_GRACE_MS, watchReachability } from '../infrastructure/mongo-reachability.ts';

/**
 * Storage failing underneath a route, with the real errors: SQLite refusing a write because its file
 * cannot grow (SQLITE_FULL, as on a full disk) and the MongoDB driver failing to select a server
 * nobody listens on. Both are the client's cue to try again — 503 with the envelope and
 * Retry-After — never a 500.
 */
const app = Fastify();
registerErrorHandling(app);
const db = new Database(':memory:');
db.exec('CREATE TABLE t (v BLOB)');
// A file that cannot grow past a few pages: SQLite answers SQLITE_FULL, as when the disk is full.
db.pragma('max_page_count = 8');
app.post('/full', async () => {
  for (;;) db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(4096));
});
let mongo: MongoClient | undefined;
app.get('/mongo', async () => {
  // Port 1 on loopback: nothing listens there.
  mongo = new MongoClient('mongodb://127.0.0.1:1/x', { serverSelectionTimeoutMS: 300, connectTimeoutMS: 300 });
  return mongo.db().collection('c').findOne({});
});
app.get('/mongo-bulk', async () => {
  // What an unordered bulk write (the write positions' batched records) throws when its server goes
  // away under it: the driver's MongoBulkWriteError, the network error in its errorResponse.
  const lost = new MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27029');
  throw new MongoBulkWriteError(lost, {} as ConstructorParameters<typeof MongoBulkWriteError>[1]);
});
app.get('/bug', async () => {
  throw new TypeError('a plain bug');
});

afterAll(async () => {
  await mongo?.close();
  db.close();
  await app.close();
});

describe('storage failures answer 503, not 500', () => {
  it('a full disk (SQLITE_FULL) is 503 storage_full with Retry-After', async () => {
    const response = await app.inject({ method: 'POST', url: '/full' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(String(STORAGE_FULL_RETRY_AFTER_SECONDS));
    expect(response.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'storage_full', path: '/full' });
  });

  it('a MongoDB server out of reach is 503 store_unavailable with Retry-After', async () => {
    const response = await app.inject({ method: 'GET', url: '/mongo' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(response.json()).toMatchObject({ statusCode: 503, code: 'store_unavailable' });
  });

  it('a bulk write whose MongoDB server went away (MongoBulkWriteError) is 503 store_unavailable too', async () => {
    const response = await app.inject({ method: 'GET', url: '/mongo-bulk' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ statusCode: 503, code: 'store_unavailable' });
  });

  it('any other error stays a 500 internal_error', async () => {
    const response = await app.inject({ method: 'GET', url: '/bug' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'internal_error' });
  });
});

describe('a MongoDB already known lost: requests are answered 503 at once', () => {
  const served = Fastify();
  registerErrorHandling(served);
  registerStoreReachability(served);
  let handled = 0;
  served.get('/v1/votes', async () => ({ handled: ++handled }));
  served.get('/health', async () => ({ status: 'ok' }));
  // The driver's SDAM events of a client that had its server and lost it.
  const client = new EventEmitter();
  watchReachability(client as unknown as MongoClient);
  const server = (type: string) => client.emit('topologyDescriptionChanged', { newDescription: { servers: new Map([['127.0.0.1:27017', { type }]]) } });
  afterAll(async () => {
    client.emit('topologyClosed');
    await served.close();
  });

  it('refuses with the envelope and Retry-After without running the route, serves /health, and serves again once the server is back', async () => {
    server('Standalone');
    expect((await served.inject({ method: 'GET', url: '/v1/votes' })).json()).toEqual({ handled: 1 });
    server('Unknown');
    // Within the grace a request still goes through (the driver's own re-check may bring the server back).
    expect((await served.inject({ method: 'GET', url: '/v1/votes' })).statusCode).toBe(200);
    await delay(LOST_GRACE_MS + 50);
    const refused = await served.inject({ method: 'GET', url: '/v1/votes' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe(String(STORE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    expect(refused.json()).toMatchObject({ statusCode: 503, code: 'store_unavailable', path: '/v1/votes' });
    expect(handled).toBe(2);
    expect((await served.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    server('Standalone');
    expect((await served.inject({ method: 'GET', url: '/v1/votes' })).json()).toEqual({ handled: 3 });
  });
});

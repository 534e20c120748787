import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Fastify from 'fastify';
import { Collections, type AccountDoc, type ApiKeyDoc } from '../contracts/read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { inMemoryWritePositions, type WritePositions } from '../infrastructure/consistency/write-positions.ts';
import { keyResolver, reflects, type KeyResolverOptions } from './auth-cache.ts';
import { registerAuth } from './auth.ts';
import { registerReadYourWrites } from './consistency.ts';
import { sha256 } from '../infrastructure/ids.ts';

/**
 * The rules of the authentication cache, with the accounts projection played by hand: documents
 * written at a position, then the `accounts` checkpoint moved (after the writes, as the runner does).
 */
let readStore: ReadStore;
let positions: WritePositions;
let head: bigint;
let clock: number;

const account = (id: string, change: Partial<AccountDoc> = {}): AccountDoc => ({
  _id: id,
  account_id: id,
  name: id,
  email: null,
  active: true,
  features: ['votes'],
  switched_off: [],
  created_at: '2024-01-01T00:00:00.000Z',
  ...change,
});
const key = (hash: string, accountId: string, revoked = false): ApiKeyDoc => ({ _id: hash, key_id: `k_${hash}`, account_id: accountId, revoked });

/** The projector applies the account and key documents at `position` and moves its checkpoint. */
const project = async (position: bigint, docs: { account?: AccountDoc; key?: ApiKeyDoc }) => {
  if (docs.account) await readStore.collection<AccountDoc>(Collections.accounts).upsert(docs.account, position);
  if (docs.key) await readStore.collection<ApiKeyDoc>(Collections.apiKeys).upsert(docs.key, position);
  await readStore.setCheckpoint('accounts', position);
  if (position > head) head = position;
};

/** The command side appended an account change at `position` (not projected yet) and recorded it. */
const appendAccountChange = async (accountId: string, position: bigint) => {
  if (position > head) head = position;
  await positions.recordAccountChange(accountId, position);
};

const resolver = (options: Partial<KeyResolverOptions> = {}) =>
  keyResolver({ readStore, writePositions: positions, catchUpMs: 1000, now: () => clock, ...options });

/** Counts document reads of the read store (key and account lookups). */
const countReads = () => {
  const counter = { gets: 0 };
  const collection = readStore.collection.bind(readStore);
  vi.spyOn(readStore, 'collection').mockImplementation(((name: string) => {
    const inner = collection(name);
    return { ...inner, get: (id: string) => (counter.gets++, inner.get(id)) };
  }) as ReadStore['collection']);
  return counter;
};

beforeEach(async () => {
  readStore = embeddedReadStore();
  positions = inMemoryWritePositions();
  head = 0n;
  clock = 0;
  await project(1n, { account: account('a1') });
  await project(2n, { key: key('h1', 'a1') });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await readStore.close();
});

describe('reflects', () => {
  it('holds when nothing changed or the change is at or below what was seen', () => {
    expect(reflects(null, null)).toBe(true);
    expect(reflects(5n, null)).toBe(true);
    expect(reflects(5n, 5n)).toBe(true);
    expect(reflects(5n, 6n)).toBe(false);
    expect(reflects(null, 1n)).toBe(false);
  });
});

describe('key resolver (authentication cache)', () => {
  it('answers a known key from the cache with one positions lookup and no document reads', async () => {
    const keys = resolver();
    expect((await keys.resolve('h1'))?.account?.account_id).toBe('a1');
    const reads = countReads();
    // Leased: account changes are answered only after the lease (write-positions.ts).
    const lookups = vi.spyOn(positions, 'leasedPositions');
    const again = await keys.resolve('h1');
    expect(again?.apiKey.key_id).toBe('k_h1');
    expect(again?.positions).toEqual({ lastWrite: null, lastAccountChange: null });
    expect(reads.gets).toBe(0);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('keeps a cached entry across writes that do not change the account', async () => {
    const keys = resolver();
    await keys.resolve('h1');
    await positions.record('a1', 40n);
    const reads = countReads();
    const found = await keys.resolve('h1');
    expect(found?.positions).toEqual({ lastWrite: 40n, lastAccountChange: null });
    expect(reads.gets).toBe(0);
  });

  it('refreshes a stale entry after an account change: waits for the projection, then reads again', async () => {
    const keys = resolver();
    expect((await keys.resolve('h1'))?.account?.active).toBe(true);
    await appendAccountChange('a1', 3n);
    setTimeout(() => void project(3n, { account: account('a1', { active: false }) }), 20);
    const found = await keys.resolve('h1');
    expect(found?.account?.active).toBe(false);
    expect(found?.positions.lastAccountChange).toBe(3n);
    // The refreshed entry is cached again: the next request reads no documents.
    const reads = countReads();
    expect((await keys.resolve('h1'))?.account?.active).toBe(false);
    expect(reads.gets).toBe(0);
  });

  it('refuses a revoked key on the next request (the revocation is waited for)', async () => {
    const keys = resolver();
    expect((await keys.resolve('h1'))?.apiKey.revoked).toBe(false);
    await appendAccountChange('a1', 3n);
    setTimeout(() => void project(3n, { key: key('h1', 'a1', true) }), 20);
    expect((await keys.resolve('h1'))?.apiKey.revoked).toBe(true);
  });

  it('sees feature and plan changes made by another replica that shares the write positions', async () => {
    const here = resolver();
    await here.resolve('h1');
    // Another command-api replica changed the features and recorded it in the shared positions;
    // the projection had already passed it when this replica reads.
    await project(3n, { account: account('a1', { features: ['favourites'], plan: 'pro' }) });
    await positions.recordAccountChange('a1', 3n);
    const found = await here.resolve('h1');
    expect(found?.account?.features).toEqual(['favourites']);
    expect(found?.account?.plan).toBe('pro');
  });

  it('answers an unknown key from the key read model alone: no wait, nothing else read', async () => {
    const keys = resolver();
    head = 4n; // the log has moved on; an unknown key must not make the resolver wait for it
    const wait = vi.spyOn(readStore, 'waitForCheckpoints');
    const started = Date.now();
    expect(await keys.resolve('h2')).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
    expect(wait).not.toHaveBeenCalled();
  });

  it('never remembers an unknown key, so a key projected after a miss works at once', async () => {
    const keys = resolver({ catchUpMs: 10 });
    expect(await keys.resolve('h3')).toBeNull();
    expect(keys.size).toBe(0);
    await project(5n, { key: key('h3', 'a1') });
    expect((await keys.resolve('h3'))?.apiKey.key_id).toBe('k_h3');
  });

  it('fails closed: 503 consistency_timeout (Retry-After) while the account change is not projected, never the stale documents', async () => {
    const keys = resolver({ catchUpMs: 10 });
    await keys.resolve('h1');
    await appendAccountChange('a1', 9n); // e.g. a deactivation the projection has not reached
    const error = await keys.resolve('h1').catch((caught) => caught);
    expect(error).toMatchObject({ code: 'consistency_timeout', statusCode: 503, retryAfterSeconds: 1 });
    // Not served from the cache either on the next request.
    await expect(keys.resolve('h1')).rejects.toMatchObject({ code: 'consistency_timeout' });
    // Once the projection passes the change, the documents read reflect it.
    await project(9n, { account: account('a1', { active: false }) });
    expect((await keys.resolve('h1'))?.account?.active).toBe(false);
  });

  it('fails closed for a key first seen while its account has an unprojected change', async () => {
    await appendAccountChange('a1', 9n);
    await expect(resolver({ catchUpMs: 10 }).resolve('h1')).rejects.toMatchObject({ code: 'consistency_timeout' });
  });

  it('re-reads an entry older than maxAgeMs (changes nobody recorded)', async () => {
    const keys = resolver({ maxAgeMs: 1000 });
    await keys.resolve('h1');
    await project(3n, { account: account('a1', { active: false }) }); // e.g. the admin CLI of an all-in-one
    clock = 999;
    expect((await keys.resolve('h1'))?.account?.active).toBe(true);
    clock = 1000;
    expect((await keys.resolve('h1'))?.account?.active).toBe(false);
  });

  it('keeps at most maxEntries keys, dropping the least recently used', async () => {
    await project(3n, { key: key('h2', 'a1') });
    await project(4n, { key: key('h3', 'a1') });
    const keys = resolver({ maxEntries: 2 });
    await keys.resolve('h1');
    await keys.resolve('h2');
    await keys.resolve('h1'); // h2 is now the least recently used
    await keys.resolve('h3');
    expect(keys.size).toBe(2);
    const reads = countReads();
    await keys.resolve('h1');
    expect(reads.gets).toBe(0);
    await keys.resolve('h2');
    expect(reads.gets).toBeGreaterThan(0);
  });

  it('caches nothing without write positions (nothing would tell a stale entry)', async () => {
    const keys = resolver({ writePositions: undefined });
    await keys.resolve('h1');
    expect(keys.size).toBe(0);
    await project(3n, { account: account('a1', { active: false }) });
    expect((await keys.resolve('h1'))?.account?.active).toBe(false);
  });
});

describe('one positions lookup per request', () => {
  it('lets read-your-writes reuse the positions authentication read', async () => {
    const app = Fastify();
    registerAuth(app, { readStore, eventStore: { headPosition: async () => head } as never, adminApiKey: undefined, writePositions: positions });
    registerReadYourWrites(app, { readStore, writePositions: positions, projections: ['accounts'], timeoutMs: 50 });
    app.get('/v1/things', async () => ({ ok: true }));
    await readStore.collection<ApiKeyDoc>(Collections.apiKeys).upsert(key(sha256('live_secret'), 'a1'), 3n);
    await readStore.setCheckpoint('accounts', 3n);
    await positions.record('a1', 3n);
    const get = () => app.inject({ method: 'GET', url: '/v1/things', headers: { 'x-api-key': 'live_secret' } });
    expect((await get()).statusCode).toBe(200);
    const lookups = vi.spyOn(positions, 'leasedPositions');
    const freshLookups = vi.spyOn(positions, 'positions');
    const lastWrites = vi.spyOn(positions, 'lastWrite');
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-consistency']).toBeUndefined();
    // In memory every lookup is fresh (no lease): read-your-writes takes the one authentication made.
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(freshLookups).not.toHaveBeenCalled();
    expect(lastWrites).not.toHaveBeenCalled();
    await app.close();
  });
});

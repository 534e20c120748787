import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_COLLECTIONS } from '../contracts/reference-read-models.ts';
import type { Collection, Doc, Filter, FindOptions } from '../infrastructure/read-store/port.ts';
import { seedImage } from './image-fixtures.ts';
import { LIST_REQUESTS } from './list-queries.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

/**
 * No list read scans: every request of test/list-queries.ts is sent to the service, the read-store
 * queries its route issues are recorded, and each is explained by the adapter it runs on — the
 * embedded store's SQLite query plan, MongoDB's explain (with E2E_ADAPTERS=production; a server
 * without explain is answered from the collection's indexes by MongoDB's rule). A query that reads
 * a whole collection (or walks a whole index while filtering), or sorts what it matched in memory,
 * fails. Not timed: it asserts how queries run, whatever the machine.
 *
 * Reference collections (breeds, facts, categories, legislation, …) are left out: they are imported
 * catalogues of a few thousand documents at most, read whole into caches by design.
 */
type Recorded = { collection: string; call: 'find' | 'count' | 'sample'; filter: Filter | undefined; options: FindOptions };

const REFERENCE = new Set<string>(Object.values(REFERENCE_COLLECTIONS));

let service: TestService;
let key: string;
const ids: Record<string, string> = {};
const recorded: Recorded[] = [];
let recording = false;

beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true });
  const account = await service.createAccount();
  key = account.api_key;
  ids.account = account.account_id;
  const post = async (path: string, body: unknown) => {
    const response = await service.request('POST', path, { key, body });
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  ids.webhook = (await post('/v1/webhooks', { url: 'http://127.0.0.1:9/hook', enabled_events: ['vote.created'] })).id;
  ids.image = await seedImage(service, account.account_id, {
    breed_ids: ['abys'],
    sub_id: 'u1',
    age_months: 6,
    labelled: { species_id: '1', colour_ids: ['cat-blk'], colour_codes: ['BLK'] },
  });
  await seedImage(service, account.account_id, { breed_ids: [], sub_id: 'u2' });
  await post('/v1/votes', { image_id: ids.image, value: 1, sub_id: 'u1' });
  await post('/v1/votes', { image_id: 'elsewhere', value: -1 });
  await post('/v1/favourites', { image_id: ids.image, sub_id: 'u1' });
  ids.pet = (await post('/v1/pets', { name: 'Rex', breed_id: 'abys', sub_id: 'u1' })).id;
  await post(`/v1/images/${ids.image}/public-requests`, {});
  // A public catalogue the random search draws from (its entries), of another account.
  const poster = await service.createAccount();
  for (const [breed, species] of [['abys', '1'], ['abys', '1'], ['beng', '1'], ['beagle', '2'], ['', null]] as const) {
    const imageId = await seedImage(service, poster.account_id, { breed_ids: breed ? [breed] : [], labelled: { species_id: species } });
    const asked = await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: poster.api_key, body: {} });
    if (asked.status !== 201) throw new Error(`public request: ${asked.status}`);
    const decided = await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } });
    if (decided.status !== 200) throw new Error(`decision: ${decided.status}`);
  }

  // Every query a route issues goes through the store's collection(): record them while a request runs.
  const store = service.adapters.readStore;
  const collectionOf = store.collection.bind(store);
  store.collection = <T extends Doc>(name: string): Collection<T> => {
    const target = collectionOf<T>(name);
    const note = (call: Recorded['call'], filter: Filter | undefined, options: FindOptions = {}) => {
      if (recording) recorded.push({ collection: name, call, filter, options });
    };
    return Object.assign(Object.create(target) as Collection<T>, {
      find: (filter?: Filter, options?: FindOptions) => (note('find', filter, options), target.find(filter, options)),
      count: (filter?: Filter) => (note('count', filter), target.count(filter)),
      sample: (filter: Filter, size: number) => (note('sample', filter), target.sample(filter, size)),
    });
  };
});
afterAll(async () => {
  await service?.dispose();
});

describe('list queries are served by indexes', () => {
  it.each(LIST_REQUESTS.map((request) => [request.list, request.path, request] as const))('%s: %s', async (_list, _path, request) => {
    const path = request.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);
    recorded.length = 0;
    recording = true;
    const response = await service.request('GET', path, { key: request.admin ? ADMIN_KEY : key });
    recording = false;
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const queries = recorded.filter((query) => !REFERENCE.has(query.collection));
    for (const query of queries) {
      const collection = service.adapters.readStore.collection(query.collection);
      // count and sample read every match by their nature; what matters is that the index finds them.
      const plan = await collection.explain!(query.filter, query.call === 'find' ? query.options : {});
      const what = `${query.call} on ${query.collection}: ${JSON.stringify(query.filter)} ${JSON.stringify(query.options)}\n${plan.detail}`;
      if (process.env.LIST_QUERIES_PLANS) process.stdout.write(`${path}\n  ${what.replace(/\n/g, '\n  ')}\n`);
      expect(plan.scans, what).toBe(false);
      expect(plan.sortsInMemory, what).toBe(false);
      // A find without a limit reads all its index yields: the index must match every equality.
      if (query.call === 'find' && query.options.limit === undefined) expect(plan.partialPrefix ?? false, what).toBe(false);
    }
  });

  it('recorded the queries of the lists (the check above is not vacuous)', async () => {
    recorded.length = 0;
    recording = true;
    await service.request('GET', '/v1/votes?limit=5', { key });
    recording = false;
    expect(recorded.map((query) => [query.collection, query.call])).toEqual(expect.arrayContaining([['votes', 'count'], ['votes', 'find']]));
  });

  it('recorded the random search reading the search entries (the catalogue is large enough to draw from them)', async () => {
    // (another account's approvals reach this account's reads once projected)
    const deadline = Date.now() + 10_000;
    while ((await service.request('GET', '/v1/images/search?limit=1&breed_ids=beagle', { key })).body.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // A draw of 1 picks this account's own private images (2 of 7) without reading entries: a few draws.
    recorded.length = 0;
    recording = true;
    for (let i = 0; i < 20 && !recorded.some((query) => query.collection === 'image_search_entries'); i++) await service.request('GET', '/v1/images/search?limit=1', { key });
    recording = false;
    expect(recorded.map((query) => [query.collection, query.call])).toEqual(expect.arrayContaining([['image_search_entries', 'count'], ['image_search_entries', 'find']]));
  });
});

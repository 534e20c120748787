import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_FEATURES } from '../domain/accounts/features.ts';
import { seedImage, type SeedImage } from './image-fixtures.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { waitUntil } from './webhook-receiver.ts';

/**
 * GET /v1/images/search over a public catalogue, as TheCatAPI's most common use: random public
 * images (the default order), narrowed by breed_ids, species_id, has_breeds, category_ids,
 * mime_types; limit up to 100 with the premium feature, 25 without; the caller's own private
 * images drawn with the public ones; ASC/DESC paging unchanged. (Fairness itself is held to
 * statistics in query-api/fair-sample.unit.spec.ts.)
 */
let service: TestService;
let searcher: { key: string; id: string };
/** The account whose approved photos make the public catalogue. */
let posterKey: string;
const catalogue: Record<string, string[]> = { abys: [], beng: [], beagle: [], none: [] };
let mine: string;
let lastSeen = '';

type Found = { id: string; breed_ids: string[]; species_id: string | null; mime_type: string; approved: number };
const search = async (query: string, key = searcher.key) => {
  const response = await service.request('GET', `/v1/images/search?${query}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { body: response.body as Found[], headers: response.headers };
};
const idsOf = (images: Found[]) => images.map((image) => image.id);

beforeAll(async () => {
  service = await startTestService();
  const poster = await service.createAccount();
  posterKey = poster.api_key;
  const created = await service.createAccount();
  searcher = { key: created.api_key, id: created.account_id };
  const photo = async (group: string, seed: SeedImage) => {
    const id = await seedImage(service, poster.account_id, seed);
    expect((await service.request('POST', `/v1/images/${id}/public-requests`, { key: poster.api_key, body: {} })).status).toBe(201);
    expect((await service.request('POST', `/v1/images/${id}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    catalogue[group].push(id);
  };
  for (let i = 0; i < 8; i++) await photo('abys', { breed_ids: ['abys'], labelled: { species_id: '1' } });
  for (let i = 0; i < 6; i++) await photo('beng', { breed_ids: ['beng'], format: 'png', mime_type: 'image/png', labelled: { species_id: '1' } });
  for (let i = 0; i < 6; i++) await photo('beagle', { breed_ids: ['beagle'], labelled: { species_id: '2' } });
  for (let i = 0; i < 6; i++) await photo('none', { breed_ids: [], format: 'gif', mime_type: 'image/gif' });
  // The searcher's own private photo of an Abyssinian is drawn with the public ones.
  mine = await seedImage(service, searcher.id, { breed_ids: ['abys'], labelled: { species_id: '1' } });
  await waitUntil(
    async () => {
      const found = await search('order=ASC&limit=100');
      if (found.body.length === 27) return true;
      lastSeen = `${found.body.length} images, Pagination-Count ${found.headers.get('pagination-count')}, Pagination-Limit ${found.headers.get('pagination-limit')}`;
      return undefined;
    },
    10_000,
    'the approved catalogue',
  ).catch((error) => {
    throw new Error(`${error.message}: ${lastSeen}`);
  });
});
afterAll(async () => {
  await service?.dispose();
});

const publicIds = () => Object.values(catalogue).flat();

describe('random image search over the catalogue', () => {
  it('answers one random image by default, with the number of matches', async () => {
    const { body, headers } = await search('');
    expect(body).toHaveLength(1);
    expect([...publicIds(), mine]).toContain(body[0].id);
    expect(headers.get('pagination-count')).toBe('27');
    expect(headers.get('pagination-limit')).toBe('1');
  });

  it('draws distinct images, different ones from one request to the next, covering the catalogue', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const { body } = await search('limit=5');
      expect(body).toHaveLength(5);
      expect(new Set(idsOf(body)).size).toBe(5);
      for (const image of body) seen.add(image.id);
    }
    // 60 draws of 27 images: each is missed with odds (22/27)^12 ≈ 0.09, so most are seen.
    expect(seen.size).toBeGreaterThan(20);
    for (const id of seen) expect([...publicIds(), mine]).toContain(id);
  });

  it('narrows by breed_ids (one or several), species_id, has_breeds, mime_types and category_ids', async () => {
    const draws = async (query: string, times = 6) => {
      const seen = new Set<string>();
      for (let i = 0; i < times; i++) for (const image of (await search(query)).body) seen.add(image.id);
      return seen;
    };
    const abys = await draws('breed_ids=abys&limit=3', 10);
    for (const id of abys) expect([...catalogue.abys, mine]).toContain(id);
    expect(abys.size).toBeGreaterThan(5);
    expect((await search('breed_ids=abys&limit=3')).headers.get('pagination-count')).toBe('9');

    const two = await draws('breed_ids=abys,beng&limit=4', 8);
    for (const id of two) expect([...catalogue.abys, ...catalogue.beng, mine]).toContain(id);
    expect([...two].some((id) => catalogue.beng.includes(id))).toBe(true);

    for (const id of await draws('species_id=2&limit=3')) expect(catalogue.beagle).toContain(id);
    for (const id of await draws('has_breeds=0&limit=3')) expect(catalogue.none).toContain(id);
    for (const id of await draws('has_breeds=1&limit=3')) expect(catalogue.none).not.toContain(id);
    for (const id of await draws('mime_types=gif&limit=2')) expect(catalogue.none).toContain(id);
    for (const id of await draws('mime_types=png&limit=2')) expect(catalogue.beng).toContain(id);
    for (const id of await draws('breed_ids=abys,beagle&species_id=2&limit=3')) expect(catalogue.beagle).toContain(id);
    expect((await search('category_ids=1&limit=5')).body).toEqual([]);
    expect((await search('breed_ids=siam&limit=5')).body).toEqual([]);
  });

  it('gives everything that matches when the limit covers it', async () => {
    const { body } = await search('limit=100');
    expect(new Set(idsOf(body))).toEqual(new Set([...publicIds(), mine]));
    expect(idsOf((await search('breed_ids=beng&limit=10')).body).sort()).toEqual([...catalogue.beng].sort());
  });

  it('serves pages of at most 25 without the premium feature', async () => {
    const basic = await service.createAccount({ features: ALL_FEATURES.filter((feature) => feature !== 'premium') });
    const { body, headers } = await search('limit=100', basic.api_key);
    expect(body).toHaveLength(25);
    expect(headers.get('pagination-limit')).toBe('25');
    expect((await search('limit=100&order=ASC', basic.api_key)).body).toHaveLength(25);
    expect((await search('limit=100')).headers.get('pagination-limit')).toBe('100');
  });

  it('keeps ASC/DESC paging as it was', async () => {
    const first = await search('order=ASC&limit=10&page=0');
    const second = await search('order=ASC&limit=10&page=1');
    expect(first.headers.get('pagination-count')).toBe('27');
    const all = (await search('order=ASC&limit=100')).body;
    expect(idsOf([...first.body, ...second.body])).toEqual(idsOf(all).slice(0, 20));
    expect(idsOf((await search('order=DESC&limit=100')).body)).toEqual(idsOf(all).reverse());
  });

  it('drops an image from the draws once deleted', async () => {
    expect((await service.request('DELETE', `/v1/images/${mine}`, { key: searcher.key })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect(idsOf((await search('breed_ids=abys&limit=9')).body)).not.toContain(mine);
    expect((await search('breed_ids=abys&limit=9')).headers.get('pagination-count')).toBe('8');
  });

  it("counts the caller's own deletion of a public image in its next search, whatever count others share", async () => {
    const key = posterKey;
    // A search just before (the shared public count is now a few milliseconds old)...
    expect((await search('breed_ids=abys&limit=9', key)).headers.get('pagination-count')).toBe('8');
    const gone = catalogue.abys.shift() as string;
    expect((await service.request('DELETE', `/v1/images/${gone}`, { key })).status).toBe(200);
    // ...is not what the deleting caller is answered with.
    const after = await search('breed_ids=abys&limit=9', key);
    expect(after.headers.get('pagination-count')).toBe('7');
    expect(idsOf(after.body)).not.toContain(gone);
  });
});

import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { waitUntil } from './webhook-receiver.ts';
import { seedImage } from './image-fixtures.ts';
import { blobKeysFor } from '../domain/images/image.ts';

/**
 * The query side of images over real sockets: search (visibility, every filter, paging, size,
 * format=src), the owner's list, one image, breeds tagged on an image, public requests and their
 * decision, deletion. Images are appended as upload events (the upload route is the write side's).
 */
let service: TestService;
let owner: { key: string; id: string };
let other: { key: string; id: string };

const account = async () => {
  const created = await service.createAccount();
  return { key: created.api_key, id: created.account_id };
};
const get = (path: string, key: string) => service.request('GET', path, { key });
const ids = (body: { id: string }[]) => body.map((image) => image.id).sort();

beforeAll(async () => {
  service = await startTestService();
  owner = await account();
  other = await account();
});
afterAll(async () => {
  await service.dispose();
});

describe('image search', () => {
  let mine: string[];
  let theirs: string;
  let searcher: { key: string; id: string };
  beforeAll(async () => {
    searcher = await account();
    const poster = await account();
    mine = [
      await seedImage(service, searcher.id, { breed_ids: ['abys'], sub_id: 'u1', age_months: 6, format: 'jpg', mime_type: 'image/jpeg', created_at: '2026-01-01T00:00:00.000Z', labelled: { species_id: '1', colour_ids: ['cat-blk'], colour_codes: ['BLK'] } }),
      await seedImage(service, searcher.id, { breed_ids: ['pers'], sub_id: 'u2', age_months: 30, format: 'png', mime_type: 'image/png', created_at: '2026-01-02T00:00:00.000Z' }),
      await seedImage(service, searcher.id, { breed_ids: [], sub_id: 'u1', format: 'gif', mime_type: 'image/gif', created_at: '2026-01-03T00:00:00.000Z' }),
    ];
    theirs = await seedImage(service, poster.id, { breed_ids: ['beng'], created_at: '2026-01-04T00:00:00.000Z' });
    // another account's image stays private until a public request is approved
    expect(ids((await get('/v1/images/search?limit=100&order=ASC', searcher.key)).body)).toEqual([...mine].sort());
    expect((await service.request('POST', `/v1/images/${theirs}/public-requests`, { key: poster.key, body: {} })).status).toBe(201);
    expect((await service.request('POST', `/v1/images/${theirs}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    // Another account's write (the admin's decision) is read-your-writes for the admin only: the
    // searcher sees it once the projection has it (at once on the embedded adapters, a few ms
    // later on MongoDB).
    await waitUntil(async () => ids((await get('/v1/images/search?limit=100', searcher.key)).body).includes(theirs), 10_000, 'the approved image in search');
  });

  it('answers public images and the caller’s own, one at random by default, with Pagination-Count', async () => {
    const all = await get('/v1/images/search?limit=100&order=ASC', searcher.key);
    expect(all.status).toBe(200);
    expect(all.body.map((image: { id: string }) => image.id)).toEqual([...mine, theirs]);
    const one = await get('/v1/images/search', searcher.key);
    expect(one.body).toHaveLength(1);
    expect([...mine, theirs]).toContain(one.body[0].id);
    expect(Number(one.headers.get('pagination-count'))).toBeGreaterThanOrEqual(4);
    // a third account sees the public image, none of the searcher's private ones
    const stranger = await account();
    expect(ids((await get('/v1/images/search?limit=100', stranger.key)).body)).not.toEqual(expect.arrayContaining([mine[0]]));
    expect(ids((await get('/v1/images/search?limit=100', stranger.key)).body)).toContain(theirs);
  });

  it('shows the Image resource with breeds, TheCatAPI fields and a url', async () => {
    const [image] = (await get(`/v1/images/search?breed_id=abys&limit=5`, searcher.key)).body;
    expect(image).toMatchObject({ id: mine[0], width: 640, height: 480, mime_type: 'image/jpeg', sub_id: 'u1', species_id: '1', breed_ids: ['abys'], pending: 0, approved: 0, status: 'labelled', age_months: 6 });
    expect(image.breeds).toHaveLength(1);
    expect(image.breeds[0]).toMatchObject({ id: 'abys', name: 'Abyssinian', weight_imperial: '6 - 11', suppress_tail: 0 });
    expect(image.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/images\/files\/[A-Za-z0-9_-]+\.jpg$/);
    // every field is present: categories and colours not asked for are empty
    expect(image.categories).toEqual([]);
    expect(image.colours).toEqual([]);
    // the owner's fields only on the caller's own images
    expect(image.original_filename).toBe(`${mine[0]}.jpg`);
    const [publicOne] = (await get('/v1/images/search?breed_id=beng', searcher.key)).body;
    expect(publicOne).toMatchObject({ id: theirs, approved: 1, review: { public: true } });
    expect(publicOne).not.toHaveProperty('original_filename');
    const bare = (await get(`/v1/images/search?breed_id=abys&include_breeds=0&include_categories=1&include_colours=true`, searcher.key)).body[0];
    expect(bare.breeds).toEqual([]);
    expect(bare.categories).toEqual([]);
    expect(Array.isArray(bare.colours)).toBe(true);
    const thumb = (await get(`/v1/images/search?breed_id=abys&size=thumb`, searcher.key)).body[0];
    expect(thumb.url).toMatch(/\.jpg\?size=thumb$/);
  });

  it.each([
    ['breed_ids=abys,pers', () => [mine[0], mine[1]]],
    ['breed_ids=ABYS', () => [mine[0]]],
    ['has_breeds=1', () => [mine[0], mine[1], theirs]],
    ['has_breeds=true', () => [mine[0], mine[1], theirs]],
    ['has_breeds=0', () => [mine[2]]],
    ['mime_types=jpg', () => [mine[0], theirs]],
    ['mime_types=png,gif', () => [mine[1], mine[2]]],
    ['mime_types=image/jpeg', () => [mine[0], theirs]],
    ['sub_id=u1', () => [mine[0], mine[2]]],
    ['species_id=1', () => [mine[0]]],
    ['colour_code=blk', () => [mine[0]]],
    ['colour_ids=cat-blk', () => [mine[0]]],
    ['has_colours=1', () => [mine[0]]],
    ['age_months_min=12', () => [mine[1]]],
    ['age_months_max=12', () => [mine[0]]],
    ['age_months_min=1&age_months_max=100', () => [mine[0], mine[1]]],
    ['breed_groups=category i: persian and exotic', () => [mine[1]]],
    ['exclude_breed_groups=Category III: Shorthair and Somali', () => [mine[1], mine[2]]],
    ['category_ids=1', () => []],
    ['breed_id=nope', () => []],
  ])('filters %s', async (filter, expected) => {
    const response = await get(`/v1/images/search?limit=100&${encodeURI(filter)}`, searcher.key);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(ids(response.body)).toEqual([...expected()].sort());
    expect(response.headers.get('pagination-count')).toBe(String(expected().length));
  });

  it('pages with order ASC/DESC (by created_at or order_by) and draws RAND', async () => {
    const page0 = await get('/v1/images/search?limit=2&page=0&order=ASC', searcher.key);
    const page1 = await get('/v1/images/search?limit=2&page=1&order=asc', searcher.key);
    expect([...page0.body, ...page1.body].map((image: { id: string }) => image.id)).toEqual([...mine, theirs]);
    expect(page1.headers.get('pagination-page')).toBe('1');
    const desc = await get('/v1/images/search?limit=4&order=DESC', searcher.key);
    expect(desc.body.map((image: { id: string }) => image.id)).toEqual([theirs, mine[2], mine[1], mine[0]]);
    const bySub = await get('/v1/images/search?limit=1&order=DESC&order_by=sub_id', searcher.key);
    expect(bySub.body.map((image: { id: string }) => image.id)).toEqual([mine[1]]);
    const byId = await get('/v1/images/search?limit=100&order=ASC&order_by=id', searcher.key);
    expect(byId.body.map((image: { id: string }) => image.id)).toEqual([...mine, theirs].sort());
    const random = await get('/v1/images/search?limit=3&order=RAND&page=7', searcher.key);
    expect(random.body).toHaveLength(3);
  });

  it('format=src redirects to the first image’s bytes; no match is 404', async () => {
    const response = await fetch(`${service.url}/v1/images/search?breed_id=abys&format=src`, { headers: { 'x-api-key': searcher.key }, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/\/v1\/images\/files\/[A-Za-z0-9_-]+\.jpg$/);
    expectEnvelope(await get('/v1/images/search?breed_id=nope&format=src', searcher.key), 404, 'not_found');
  });

  it('rejects bad filters with 400', async () => {
    for (const query of ['limit=0', 'limit=101', 'page=-1', 'order=SIDEWAYS', 'has_breeds=yes', 'size=huge', 'format=xml', 'age_months_min=-1', 'species_id=cat', 'lang=i', 'order_by=colour']) {
      expectEnvelope(await get(`/v1/images/search?${query}`, searcher.key), 400, 'validation_failed');
    }
  });
});

describe('the owner’s images and one image', () => {
  it('lists the caller’s own full records with original_filename, created_at, vote and favourite', async () => {
    const lister = await account();
    const first = await seedImage(service, lister.id, { original_filename: 'first.jpg', breed_ids: ['beng'], created_at: '2026-02-01T00:00:00.000Z' });
    const second = await seedImage(service, lister.id, { original_filename: 'second.png', created_at: '2026-02-02T00:00:00.000Z' });
    await seedImage(service, other.id, {});
    // An older vote on the same image: the image shows the newest one.
    expect((await service.request('POST', '/v1/votes', { key: lister.key, body: { image_id: first, value: 1, sub_id: 'earlier' } })).status).toBe(201);
    const vote = (await service.request('POST', '/v1/votes', { key: lister.key, body: { image_id: first, value: -1, sub_id: 's' } })).body;
    const favourite = (await service.request('POST', '/v1/favourites', { key: lister.key, body: { image_id: first } })).body;
    const list = await get('/v1/images', lister.key);
    expect(list.status).toBe(200);
    expect(list.body.map((image: { id: string }) => image.id)).toEqual([second, first]);
    expect(list.headers.get('pagination-count')).toBe('2');
    const [newest, oldest] = list.body;
    expect(oldest).toMatchObject({
      id: first,
      original_filename: 'first.jpg',
      breed_ids: ['beng'],
      created_at: '2026-02-01T00:00:00.000Z',
      vote: { id: vote.id, value: -1, sub_id: 's' },
      favourite: { id: favourite.id, sub_id: null },
      categories: [],
      colours: [],
    });
    expect(oldest.breeds[0]).toMatchObject({ id: 'beng' });
    expect(newest).not.toHaveProperty('vote');
    expect(newest).not.toHaveProperty('favourite');
    expect((await get('/v1/images?order=ASC&limit=1', lister.key)).body.map((image: { id: string }) => image.id)).toEqual([first]);
    expectEnvelope(await get(`/v1/images?account_id=${other.id}`, lister.key), 403, 'forbidden');
  });

  it('answers one image to its owner; another account’s private image is 403, a missing one 404', async () => {
    const imageId = await seedImage(service, owner.id, { breed_ids: ['abys'] });
    const mine = await get(`/v1/images/${imageId}`, owner.key);
    expect(mine.status).toBe(200);
    // not through the safety check yet: pending
    expect(mine.body).toMatchObject({ id: imageId, original_filename: `${imageId}.jpg`, breed_ids: ['abys'], pending: 1, review: { public: false, pending: true } });
    expect(mine.body.breeds[0].id).toBe('abys');
    expectEnvelope(await get(`/v1/images/${imageId}`, other.key), 403, 'forbidden');
    expectEnvelope(await get('/v1/images/doesnotexist', owner.key), 404, 'not_found');
    expectEnvelope(await get('/v1/images/bad%20id', owner.key), 400, 'validation_failed');
  });
});

describe('breeds tagged on an image', () => {
  it('tags, lists and untags breeds; refuses duplicates, unknown breeds and other accounts', async () => {
    const imageId = await seedImage(service, owner.id, {});
    const tagged = await service.request('POST', `/v1/images/${imageId}/breeds`, { key: owner.key, body: { breed_id: 'beng' } });
    expect(tagged.status).toBe(201);
    expect(tagged.body).toEqual({ message: 'SUCCESS', id: 'beng', image_id: imageId, breed_id: 'beng' });
    const breeds = await get(`/v1/images/${imageId}/breeds`, owner.key);
    expect(breeds.body.map((breed: { id: string }) => breed.id)).toEqual(['beng']);
    expect(breeds.body[0]).toMatchObject({ name: 'Bengal', weight_imperial: '8 - 15' });
    expect((await get(`/v1/images/${imageId}/breeds?lang=fr`, owner.key)).headers.get('content-language')).toMatch(/^(fr|en)$/);
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/breeds`, { key: owner.key, body: { breed_id: 'beng' } }), 409, 'conflict');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/breeds`, { key: owner.key, body: { breed_id: 'no-such-breed' } }), 400, 'validation_failed');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/breeds`, { key: owner.key, body: {} }), 400, 'validation_failed');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/breeds`, { key: other.key, body: { breed_id: 'abys' } }), 403, 'forbidden');
    expectEnvelope(await get(`/v1/images/${imageId}/breeds`, other.key), 403, 'forbidden');
    expectEnvelope(await service.request('DELETE', `/v1/images/${imageId}/breeds/beng`, { key: other.key }), 403, 'forbidden');
    expect((await service.request('DELETE', `/v1/images/${imageId}/breeds/beng`, { key: owner.key })).body).toEqual({ message: 'SUCCESS' });
    expect((await get(`/v1/images/${imageId}/breeds`, owner.key)).body).toEqual([]);
    expectEnvelope(await service.request('DELETE', `/v1/images/${imageId}/breeds/beng`, { key: owner.key }), 404, 'not_found');
    expectEnvelope(await service.request('POST', '/v1/images/nosuchimage/breeds', { key: owner.key, body: { breed_id: 'beng' } }), 404, 'not_found');
  });
});

describe('public requests', () => {
  it('opens one request at a time, shows it to the owner, and an admin decision makes the image public', async () => {
    const imageId = await seedImage(service, owner.id, {});
    const created = await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key, body: { request_message: 'a fine cat' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'SUCCESS', image_id: imageId, account_id: owner.id, status: 'pending', request_message: 'a fine cat', admin_message: null, actioned_by_email: null, actioned_at: null });
    expect(created.body.image).toMatchObject({ id: imageId, width: 640, height: 480, mime_type: 'image/jpeg' });
    expect(created.body.image.url).toMatch(/\/v1\/images\/files\//);
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key }), 409, 'public_request_pending');
    const pending = await get(`/v1/images/${imageId}/public-requests`, owner.key);
    expect(pending.body).toMatchObject({ id: created.body.id, status: 'pending', request_message: 'a fine cat', created_at: created.body.created_at });
    expect((await get(`/v1/images/${imageId}`, owner.key)).body).toMatchObject({ pending: 1, approved: 0, review: { pending: true, public: false } });
    expectEnvelope(await get(`/v1/images/${imageId}/public-requests`, other.key), 403, 'forbidden');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: other.key, body: {} }), 403, 'forbidden');
    expectEnvelope(await get(`/v1/images/${imageId}`, other.key), 403, 'forbidden');

    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: owner.key, body: { status: 'approved' } }), 403, 'admin_only');
    const decided = await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, {
      key: ADMIN_KEY,
      body: { status: 'approved', admin_message: 'lovely', actioned_by_email: 'moderator@example.org' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: created.body.id, status: 'approved', admin_message: 'lovely', actioned_by_email: 'moderator@example.org', request_message: 'a fine cat' });
    expect(Date.parse(decided.body.actioned_at)).not.toBeNaN();
    const record = await get(`/v1/images/${imageId}/public-requests`, owner.key);
    expect(record.body).toMatchObject({ status: 'approved', actioned_at: decided.body.actioned_at, updated_at: decided.body.actioned_at });
    // public now: anyone reads it by id and finds it in search
    const seen = await get(`/v1/images/${imageId}`, other.key);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ approved: 1, pending: 0, review: { approved: true, public: true } });
    expect(seen.body).not.toHaveProperty('original_filename');
    expect(ids((await get('/v1/images/search?limit=100', other.key)).body)).toContain(imageId);
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'rejected' } }), 409, 'conflict');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key }), 409, 'conflict');
  });

  it('after a rejection the owner may ask again; bad input is 400 and a missing request 404', async () => {
    const imageId = await seedImage(service, owner.id, {});
    expectEnvelope(await get(`/v1/images/${imageId}/public-requests`, owner.key), 404, 'not_found');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } }), 404, 'not_found');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key, body: { request_message: 'x'.repeat(501) } }), 400, 'validation_failed');
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key, body: { other: 1 } }), 400, 'validation_failed');
    expect((await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key, body: { request_message: 'x'.repeat(500) } })).status).toBe(201);
    expectEnvelope(await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'maybe' } }), 400, 'validation_failed');
    const rejected = await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'rejected', admin_message: 'blurry' } });
    expect(rejected.body).toMatchObject({ status: 'rejected', admin_message: 'blurry', actioned_by_email: null });
    expect((await get(`/v1/images/${imageId}`, owner.key)).body.review).toMatchObject({ rejected: true, public: false });
    expectEnvelope(await get(`/v1/images/${imageId}`, other.key), 403, 'forbidden');
    const again = await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(rejected.body.id);
    expect(again.body.request_message).toBeNull();
  });
});

describe('deleting an image', () => {
  it('removes it and its files for its owner only; votes and favourites on it keep their ids', async () => {
    const imageId = await seedImage(service, owner.id, {});
    const keys = Object.values(blobKeysFor(imageId));
    const unrelated = 'img.unrelated.original';
    for (const key of [...keys, unrelated]) await service.adapters.blobs.put(key, Buffer.from(`bytes of ${key}`), 'image/jpeg');
    const vote = (await service.request('POST', '/v1/votes', { key: owner.key, body: { image_id: imageId, value: 1 } })).body;
    const favourite = (await service.request('POST', '/v1/favourites', { key: owner.key, body: { image_id: imageId } })).body;
    expectEnvelope(await service.request('DELETE', `/v1/images/${imageId}`, { key: other.key }), 403, 'forbidden');
    expect((await service.request('DELETE', `/v1/images/${imageId}`, { key: owner.key })).body).toEqual({ message: 'SUCCESS' });
    expectEnvelope(await get(`/v1/images/${imageId}`, owner.key), 404, 'not_found');
    expectEnvelope(await service.request('DELETE', `/v1/images/${imageId}`, { key: owner.key }), 404, 'not_found');
    expect(ids((await get('/v1/images?limit=100', owner.key)).body)).not.toContain(imageId);
    expect((await get(`/v1/votes/${vote.id}`, owner.key)).body).toMatchObject({ id: vote.id, image_id: imageId });
    expect((await get(`/v1/favourites/${favourite.id}`, owner.key)).body).toMatchObject({ id: favourite.id, image_id: imageId });
    // the clean-up processor removes every size from the blob store (through the bus), and nothing else
    const deadline = Date.now() + 10_000;
    // (a read racing the delete of the same file may fail: count it as still there and look again)
    const present = async () => (await Promise.all(keys.map((key) => service.adapters.blobs.get(key).catch(() => 'racing')))).filter(Boolean).length;
    while ((await present()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await present()).toBe(0);
    expect(await service.adapters.blobs.get(unrelated)).not.toBeNull();
  });
});

describe('votes and favourites on known images', () => {
  it('embed the Image once the image is known and visible (with or without attach_image), and filter by its species and breeds', async () => {
    const voter = await account();
    const poster = await account();
    const ownImage = await seedImage(service, voter.id, { breed_ids: ['pers'], labelled: { species_id: '1' } });
    const foreign = await seedImage(service, poster.id, { breed_ids: ['beng'] });
    const unknown = 'not-uploaded-here';
    const voteOwn = (await service.request('POST', '/v1/votes', { key: voter.key, body: { image_id: ownImage, value: 1 } })).body;
    const voteForeign = (await service.request('POST', '/v1/votes', { key: voter.key, body: { image_id: foreign, value: 1 } })).body;
    const voteUnknown = (await service.request('POST', '/v1/votes', { key: voter.key, body: { image_id: unknown, value: -1 } })).body;
    const ownAsRead = (await get(`/v1/images/${ownImage}`, voter.key)).body;
    const ownUrl = ownAsRead.url;
    expect(voteOwn.image).toMatchObject({ id: ownImage, url: ownUrl, breed_ids: ['pers'] });
    const { vote: _vote, ...ownImageResource } = ownAsRead;
    expect((await get(`/v1/votes/${voteOwn.id}`, voter.key)).body.image).toMatchObject({ ...ownImageResource, vote: { id: voteOwn.id } });
    // another account's private image: its url is not the voter's to see
    expect((await get(`/v1/votes/${voteForeign.id}`, voter.key)).body.image).toEqual({ id: foreign, url: null });
    expect((await get(`/v1/votes/${voteUnknown.id}`, voter.key)).body.image).toEqual({ id: unknown, url: null });
    const bySpecies = await get('/v1/votes?species_id=1', voter.key);
    expect(bySpecies.body.map((vote: { id: number }) => vote.id)).toEqual([voteOwn.id]);
    const byGroup = await get(`/v1/votes?breed_groups=${encodeURIComponent('Category I: Persian and Exotic')}`, voter.key);
    expect(byGroup.body.map((vote: { id: number }) => vote.id)).toEqual([voteOwn.id]);
    const excluded = await get(`/v1/votes?exclude_breed_groups=${encodeURIComponent('category i: persian and exotic')}`, voter.key);
    expect(excluded.body.map((vote: { id: number }) => vote.id)).toEqual([voteForeign.id, voteUnknown.id]);

    // the foreign image turns public: the vote (projected earlier) now shows its url
    await service.request('POST', `/v1/images/${foreign}/public-requests`, { key: poster.key });
    await service.request('POST', `/v1/images/${foreign}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } });
    // (the admin's decision reaches another account's reads once projected: see 'image search')
    const foreignUrl = await waitUntil(async () => (await get(`/v1/images/${foreign}`, voter.key)).body.url as string | undefined, 10_000, 'the approved image');
    expect(foreignUrl).toMatch(/\/v1\/images\/files\//);
    await waitUntil(async () => (await get(`/v1/votes/${voteForeign.id}`, voter.key)).body.image?.url === foreignUrl, 10_000, 'the vote to show the url');

    const favourite = (await service.request('POST', '/v1/favourites', { key: voter.key, body: { image_id: ownImage } })).body;
    const favouriteUnknown = (await service.request('POST', '/v1/favourites', { key: voter.key, body: { image_id: unknown } })).body;
    expect((await get(`/v1/favourites/${favourite.id}`, voter.key)).body.image).toMatchObject({ id: ownImage, url: ownUrl, species_id: '1', breed_ids: ['pers'] });
    const attached = await get(`/v1/favourites/${favourite.id}?attach_image=true`, voter.key);
    expect(attached.body.image).toMatchObject({ id: ownImage, url: ownUrl, width: 640, height: 480, species_id: '1', breed_ids: ['pers'] });
    expect(attached.body.image.breeds[0]).toMatchObject({ id: 'pers', name: 'Persian' });
    const list = await get('/v1/favourites?attach_image=1', voter.key);
    const byId = new Map(list.body.map((item: { id: number; image: unknown }) => [item.id, item.image]));
    expect(byId.get(favourite.id)).toMatchObject({ id: ownImage, mime_type: 'image/jpeg' });
    expect(byId.get(favouriteUnknown.id)).toEqual({ id: unknown, url: null });

    // deleting the image empties its url again; the records keep their ids
    expect((await service.request('DELETE', `/v1/images/${ownImage}`, { key: voter.key })).status).toBe(200);
    expect((await get(`/v1/votes/${voteOwn.id}`, voter.key)).body.image).toEqual({ id: ownImage, url: null });
    expect((await get(`/v1/favourites/${favourite.id}?attach_image=true`, voter.key)).body.image).toEqual({ id: ownImage, url: null });
    expect((await get('/v1/votes?species_id=1', voter.key)).body).toEqual([]);
  });
});

describe('breeds’ reference images', () => {
  it('names the first public image of a breed, and moves on when it is deleted or untagged', async () => {
    const reference = async () => (await get('/v1/breeds/siam', owner.key)).body.reference_image_id;
    const approve = async (imageId: string) => {
      expect((await service.request('POST', `/v1/images/${imageId}/public-requests`, { key: owner.key })).status).toBe(201);
      expect((await service.request('POST', `/v1/images/${imageId}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    };
    expect(await reference()).toBeNull();
    const first = await seedImage(service, owner.id, { breed_ids: ['siam'] });
    const second = await seedImage(service, owner.id, { breed_ids: ['siam'] });
    expect(await reference()).toBeNull(); // private images are no reference
    await approve(second);
    expect(await reference()).toBe(second);
    await approve(first);
    expect(await reference()).toBe(second); // the first to become public stays
    expect((await service.request('DELETE', `/v1/images/${second}`, { key: owner.key })).status).toBe(200);
    expect(await reference()).toBe(first);
    expect((await service.request('DELETE', `/v1/images/${first}/breeds/siam`, { key: owner.key })).status).toBe(200);
    expect(await reference()).toBeNull();
    expect((await service.request('POST', `/v1/images/${first}/breeds`, { key: owner.key, body: { breed_id: 'siam' } })).status).toBe(201);
    expect(await reference()).toBe(first);
    const listed = (await get('/v1/breeds/search?q=siamese', owner.key)).body.find((breed: { id: string }) => breed.id === 'siam');
    expect(listed.reference_image_id).toBe(first);
  });
});

describe('with the upload route', () => {
  it('finds an uploaded image whose url (and size) serves its bytes without a key, until it is deleted', async () => {
    const uploader = await account();
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 10, g: 200, b: 90 } } }).png().toBuffer();
    const uploaded = await service.request('POST', '/v1/images/upload', { key: uploader.key, body: { type: 'base64', image: png.toString('base64'), sub_id: 'up', breed_ids: ['abys'] } });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const [found] = (await get('/v1/images/search?sub_id=up&size=thumb', uploader.key)).body;
    expect(found).toMatchObject({ id: uploaded.body.id, width: 400, height: 300, mime_type: 'image/png', breed_ids: ['abys'] });
    // thumb is made by the image-sizes processor just after the upload (med stands in until then)
    const thumb = await waitUntil(async () => {
      const answer = await fetch(found.url);
      expect(answer.status).toBe(200);
      return answer.headers.get('etag')?.endsWith('.thumb"') ? answer : (await answer.arrayBuffer(), undefined);
    }, 20_000, 'thumb made');
    expect(thumb.headers.get('content-type')).toBe('image/png');
    expect((await sharp(Buffer.from(await thumb.arrayBuffer())).metadata()).width).toBe(150);
    const src = await fetch(`${service.url}/v1/images/search?sub_id=up&format=src`, { headers: { 'x-api-key': uploader.key } });
    expect(src.status).toBe(200); // the redirect followed to the bytes
    expect((await sharp(Buffer.from(await src.arrayBuffer())).metadata()).width).toBe(400);
    expect((await service.request('DELETE', `/v1/images/${uploaded.body.id}`, { key: uploader.key })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      status = (await fetch(found.url.replace(/\?.*$/, ''))).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe(404);
  });
});

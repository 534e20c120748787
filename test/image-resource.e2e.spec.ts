import sharp from 'sharp';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { accountIdOfKey, seedImage } from './image-fixtures.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { Image } from '../contracts/image-resource.ts';

/**
 * One Image resource: every answer that carries an image carries the same shape — the upload
 * answer, the image by id, the lists and search (child images in full), votes, favourites, public
 * requests and the image.uploaded, vote.created and favourite.created webhooks — checked against the one schema, with every field
 * present (empty arrays or null for what is not known yet).
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
const validateImage = ajv.compile(Image);
const REQUIRED = (Image as unknown as { required: string[] }).required;

/** Asserts the one Image shape and returns the image. */
const expectImage = (image: any, where: string) => {
  expect(validateImage(image), `${where}: ${JSON.stringify(validateImage.errors?.slice(0, 3))}`).toBe(true);
  for (const field of REQUIRED) expect(image, `${where} lacks ${field}`).toHaveProperty(field);
  expect(image, where).not.toHaveProperty('url_path');
  expect(typeof image.url).toBe('string');
  return image;
};

let service: TestService;
let key: string;
let accountId: string;
let receiver: Receiver;

const png = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 200 } } }).png().toBuffer();

beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true });
  key = (await service.createAccount({ name: 'image shape' })).api_key;
  accountId = await accountIdOfKey(service, key);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await service?.dispose();
});

describe('the one Image resource', () => {
  it('is what upload answers, the image.uploaded webhook sends (url, not url_path) and GET /images/{id} shows; pending while it waits for review', async () => {
    const hook = await service.request('POST', '/v1/webhooks', { key, body: { url: receiver.url, enabled_events: ['image.uploaded'] } });
    expect(hook.status).toBe(201);
    const uploaded = await service.request('POST', '/v1/images/upload', {
      key,
      body: { type: 'base64', image: (await png(40, 30)).toString('base64'), sub_id: 'end-user-7', breed_ids: ['abys'], original_filename: 'cat.png' },
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const image = expectImage(uploaded.body, 'upload');
    expect(image).toMatchObject({ status: 'to_be_reviewed', pending: 1, approved: 0, sub_id: 'end-user-7', original_filename: 'cat.png', categories: [], colours: [], tags: [], childImages: [] });
    expect(image.review).toMatchObject({ pending: true, approved: false });
    expect(image.breeds.map((breed: { id: string }) => breed.id)).toEqual(['abys']);
    expect(image.links.status).toBe(`/v1/images/${image.id}/status`);

    const [delivery] = await receiver.waitFor(1, 20_000);
    const payload = JSON.parse(delivery.body);
    expect(payload).not.toHaveProperty('url_path');
    const { _metadata, links, parent_image_id, ...webhookImage } = payload;
    expect(webhookImage.url).toMatch(/^\/v1\/images\/files\//);
    expect(image.url.endsWith(webhookImage.url)).toBe(true);
    expect(Object.keys(webhookImage).sort()).toEqual(Object.keys(image).filter((field) => field !== 'links').sort());
    expect(webhookImage).toMatchObject({ id: image.id, sub_id: 'end-user-7', original_filename: 'cat.png', pending: 1 });

    const read = await service.request('GET', `/v1/images/${image.id}`, { key });
    expectImage(read.body, 'GET /images/{id}');
    expect(read.body.categories).toEqual(expect.any(Array));
    expect(read.body.colours).toEqual(expect.any(Array));
    expect(Object.keys(read.body).sort()).toEqual(Object.keys(image).filter((field) => field !== 'links').sort());
  });

  it('lists and search carry child images in full; votes, favourites and public requests embed the Image', async () => {
    const parent = await seedImage(service, accountId, { labelled: { species_id: '1', tags: ['cat'] }, image_id: `parent${Date.now()}` });
    const childIds = [`${parent}c1`, `${parent}c2`];
    for (const [index, id] of childIds.entries()) {
      await seedImage(service, accountId, { image_id: id, parent_image_id: parent, crop_box: { left: index / 2, top: 0, width: 0.5, height: 1 }, breed_ids: ['abys'], labelled: { species_id: '1' } });
    }
    // The parent's labelling names its children (appended after them, as the pipeline does).
    const withChildren = await seedImage(service, accountId, { labelled: { species_id: '1', child_image_ids: childIds } });

    const listed = await service.request('GET', '/v1/images?limit=100', { key });
    expect(listed.status).toBe(200);
    for (const image of listed.body) expectImage(image, 'GET /images');
    const mine = listed.body.find((image: { id: string }) => image.id === withChildren);
    expect(mine.childImages.map((child: { id: string }) => child.id)).toEqual(childIds);
    for (const child of mine.childImages) {
      expect(child).toMatchObject({ parent_image_id: expect.any(String), breed_ids: ['abys'], childImages: [], species_id: '1' });
      expect(child.breeds.map((breed: { id: string }) => breed.id)).toEqual(['abys']);
      expect(child).toHaveProperty('categories');
    }
    const searched = await service.request('GET', '/v1/images/search?limit=100&order=ASC&include_breeds=0', { key });
    for (const image of searched.body) expectImage(image, 'GET /images/search');
    expect(searched.body.find((image: { id: string }) => image.id === withChildren).childImages).toHaveLength(2);

    const vote = await service.request('POST', '/v1/votes', { key, body: { image_id: parent, value: 1 } });
    expect(vote.status).toBe(201);
    expectImage(vote.body.image, 'POST /votes');
    expect(vote.body.image.url).not.toBeNull();
    expectImage((await service.request('GET', `/v1/votes/${vote.body.id}`, { key })).body.image, 'GET /votes/{id}');
    for (const one of (await service.request('GET', '/v1/votes', { key })).body) expectImage(one.image, 'GET /votes');
    const favourite = await service.request('POST', '/v1/favourites', { key, body: { image_id: parent } });
    expect(favourite.status).toBe(201);
    expectImage(favourite.body.image, 'POST /favourites');
    expectImage((await service.request('GET', `/v1/favourites/${favourite.body.id}`, { key })).body.image, 'GET /favourites/{id}');
    for (const one of (await service.request('GET', '/v1/favourites', { key })).body) expectImage(one.image, 'GET /favourites');
    // An id not known here stays an id alone.
    const elsewhere = await service.request('POST', '/v1/votes', { key, body: { image_id: 'not-here', value: 1 } });
    expect(elsewhere.body.image).toEqual({ id: 'not-here', url: null });

    const requested = await service.request('POST', `/v1/images/${parent}/public-requests`, { key, body: {} });
    expect(requested.status).toBe(201);
    expect(expectImage(requested.body.image, 'POST public-requests')).toMatchObject({ pending: 1, review: { pending: true } });
    expectImage((await service.request('GET', `/v1/images/${parent}/public-requests`, { key })).body.image, 'GET public-requests');
    const decided = await service.request('POST', `/v1/images/${parent}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } });
    expect(decided.status).toBe(200);
    expect(expectImage(decided.body.image, 'decision')).toMatchObject({ approved: 1, pending: 0, review: { approved: true, pending: false } });
  });

  it('vote.created and favourite.created deliveries embed the Image as GET /images/{id} shows it to the account; another\'s private image as its id alone', async () => {
    const voter = (await service.createAccount({ name: 'image shape voter' })).api_key;
    const voterId = await accountIdOfKey(service, voter);
    const stranger = (await service.createAccount({ name: 'image shape stranger' })).api_key;
    const hooks = await startReceiver();
    try {
      const hook = await service.request('POST', '/v1/webhooks', { key: voter, body: { url: hooks.url, enabled_events: ['vote.created', 'favourite.created'] } });
      expect(hook.status).toBe(201);
      const own = await seedImage(service, voterId, { breed_ids: ['abys'], sub_id: 'owner-9', labelled: { species_id: '1', tags: ['cat'] } });
      const theirs = await seedImage(service, await accountIdOfKey(service, stranger), { labelled: { species_id: '1' } });

      const vote = await service.request('POST', '/v1/votes', { key: voter, body: { image_id: own, value: 1 } });
      expect(vote.status).toBe(201);
      const favourite = await service.request('POST', '/v1/favourites', { key: voter, body: { image_id: own } });
      expect(favourite.status).toBe(201);
      const onTheirs = await service.request('POST', '/v1/votes', { key: voter, body: { image_id: theirs, value: -1 } });
      expect(onTheirs.status).toBe(201);
      expect(onTheirs.body.image).toEqual({ id: theirs, url: null });

      const bodies = (await hooks.waitFor(3, 20_000)).map((delivery) => JSON.parse(delivery.body));
      const bodyOf = (type: string, id: number) => bodies.find((body) => body._metadata.event_type === type && body.id === id);
      const read = await service.request('GET', `/v1/images/${own}`, { key: voter });
      expect(read.status).toBe(200);
      // The caller's own vote and favourite on the image come and go with the votes and favourites read models.
      const { url: readUrl, vote: _v, favourite: _f, ...readRest } = expectImage(read.body, 'GET /images/{id}');
      for (const [type, record] of [['vote.created', vote.body], ['favourite.created', favourite.body]] as const) {
        const body = bodyOf(type, record.id);
        expect(body, type).toBeDefined();
        const image = expectImage(body.image, type);
        // url is a path under the API's origin here (no PUBLIC_BASE_URL): GET's absolute url ends with it.
        expect(image.url).toMatch(/^\/v1\/images\/files\//);
        expect(readUrl.endsWith(image.url)).toBe(true);
        const { url, vote: _vote, favourite: _favourite, ...rest } = image;
        expect(rest, type).toEqual(readRest);
        expect(rest).toMatchObject({ id: own, sub_id: 'owner-9', original_filename: `${own}.jpg`, breed_ids: ['abys'], tags: ['cat'] });
        expect(rest.breeds.map((breed: { id: string }) => breed.id)).toEqual(['abys']);
        // The same Image the API answered the vote or favourite with.
        const { url: answerUrl, vote: _av, favourite: _af, ...answered } = record.image;
        expect(rest, `${type} as answered`).toEqual(answered);
        expect(answerUrl.endsWith(image.url)).toBe(true);
      }
      expect(bodyOf('vote.created', onTheirs.body.id)?.image).toEqual({ id: theirs, url: null });
    } finally {
      await hooks.close();
    }
  });

  it('says pending: 1 while the safety check has not run, 0 once it has', async () => {
    const waiting = await seedImage(service, accountId);
    const done = await seedImage(service, accountId, { labelled: {} });
    const read = async (id: string) => (await service.request('GET', `/v1/images/${id}`, { key })).body;
    expect(await read(waiting)).toMatchObject({ status: 'to_be_reviewed', pending: 1, review: { pending: true } });
    expect(await read(done)).toMatchObject({ status: 'labelled', pending: 0, review: { pending: false } });
  });
});

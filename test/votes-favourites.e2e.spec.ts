import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';

let service: TestService;
let key: string;
beforeAll(async () => {
  service = await startTestService();
  key = (await service.createAccount()).api_key;
});
afterAll(async () => {
  await service.dispose();
});

const head = () => service.adapters.eventStore.headPosition();

describe('votes', () => {
  it('casts a vote and reads it back at once (read-your-writes)', async () => {
    const created = await service.request('POST', '/v1/votes', {
      key,
      body: { image_id: 'abc123', value: 1, sub_id: 'user-1', country_code: 'gb', ip_address: '192.0.2.1' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'SUCCESS', image_id: 'abc123', value: 1, sub_id: 'user-1', country_code: 'GB', image: { id: 'abc123', url: null } });
    expect(Number.isSafeInteger(created.body.id)).toBe(true);
    expect(created.body).not.toHaveProperty('ip_address');
    const one = await service.request('GET', `/v1/votes/${created.body.id}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      id: created.body.id,
      image_id: 'abc123',
      sub_id: 'user-1',
      created_at: created.body.created_at,
      value: 1,
      country_code: 'GB',
      image: { id: 'abc123', url: null },
    });
    const list = await service.request('GET', '/v1/votes?sub_id=user-1', { key });
    expect(list.body.map((v: { id: number }) => v.id)).toContain(created.body.id);
  });

  it('pages style A with headers, orders ASC/DESC and draws RANDOM', async () => {
    const account = await service.createAccount();
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await service.request('POST', '/v1/votes', { key: account.api_key, body: { image_id: `img${i}`, value: i % 2 ? 1 : -1, sub_id: i < 4 ? 'a' : 'b' } });
      ids.push(response.body.id);
    }
    const first = await service.request('GET', '/v1/votes?limit=3&page=0', { key: account.api_key });
    expect(first.headers.get('pagination-count')).toBe('7');
    expect(first.headers.get('pagination-page')).toBe('0');
    expect(first.headers.get('pagination-limit')).toBe('3');
    expect(first.headers.get('access-control-expose-headers')).toContain('Pagination-Count');
    expect(first.body.map((v: { id: number }) => v.id)).toEqual(ids.slice(0, 3));
    const third = await service.request('GET', '/v1/votes?limit=3&page=2', { key: account.api_key });
    expect(third.body.map((v: { id: number }) => v.id)).toEqual(ids.slice(6));
    const desc = await service.request('GET', '/v1/votes?limit=2&order=DESC', { key: account.api_key });
    expect(desc.body.map((v: { id: number }) => v.id)).toEqual([ids[6], ids[5]]);
    const random = await service.request('GET', '/v1/votes?limit=5&order=RAND', { key: account.api_key });
    expect(random.body).toHaveLength(5);
    expect(random.body.every((v: { id: number }) => ids.includes(v.id))).toBe(true);
    const bySub = await service.request('GET', '/v1/votes?sub_id=b', { key: account.api_key });
    expect(bySub.body.map((v: { id: number }) => v.id)).toEqual(ids.slice(4));
    expect(bySub.headers.get('pagination-count')).toBe('3');
    const species = await service.request('GET', '/v1/votes?species_id=1', { key: account.api_key });
    expect(species.body).toEqual([]);
  });

  it('deletes a vote; a second delete and a read answer 404', async () => {
    const created = await service.request('POST', '/v1/votes', { key, body: { image_id: 'todelete', value: -1 } });
    expect((await service.request('DELETE', `/v1/votes/${created.body.id}`, { key })).body).toEqual({ message: 'SUCCESS' });
    expectEnvelope(await service.request('GET', `/v1/votes/${created.body.id}`, { key }), 404, 'not_found');
    expectEnvelope(await service.request('DELETE', `/v1/votes/${created.body.id}`, { key }), 404, 'not_found');
  });

  it('rejects bad input precisely and appends nothing', async () => {
    const before = await head();
    const cases: [string, string, { body?: unknown; raw?: string; headers?: Record<string, string> }, number, string][] = [
      ['POST', '/v1/votes', { body: { value: 1 } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: { image_id: 'x', value: 0 } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: { image_id: 'x', value: '1' } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: { image_id: 'x', value: 1, colour: 'red' } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: { image_id: 'x', value: 1, country_code: 'GBR' } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: { image_id: 'x', value: 1, ip_address: '999.1.1.1' } }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { body: [1, 2] }, 400, 'validation_failed'],
      ['POST', '/v1/votes', { raw: '{"image_id":', headers: { 'content-type': 'application/json' } }, 400, 'invalid_json'],
      ['POST', '/v1/votes', { raw: 'image_id=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415, 'unsupported_media_type'],
      ['POST', '/v1/votes', { raw: JSON.stringify({ image_id: 'x'.repeat(2_000_000), value: 1 }), headers: { 'content-type': 'application/json' } }, 413, 'payload_too_large'],
      ['GET', '/v1/votes?limit=0', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes?limit=101', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes?page=-1', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes?order=SIDEWAYS', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes/abc', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes/0', {}, 400, 'validation_failed'],
      ['DELETE', '/v1/votes/1.5', {}, 400, 'validation_failed'],
      ['GET', '/v1/votes/99999999999999999999', {}, 400, 'validation_failed'],
      ['PUT', '/v1/votes', {}, 405, 'method_not_allowed'],
      ['PUT', '/v1/votes-nowhere', {}, 404, 'route_not_found'],
    ];
    for (const [method, path, options, status, code] of cases) {
      expectEnvelope(await service.request(method, path, { key, ...options }), status, code);
    }
    const several = expectEnvelope(await service.request('POST', '/v1/votes', { key, body: { value: 5, extra: true } }), 400, 'validation_failed');
    expect(several.message.length).toBe(3);
    expect(await head()).toBe(before);
  });
});

describe('favourites', () => {
  it('saves a favourite, refuses a duplicate with 409, and lists it at once', async () => {
    const created = await service.request('POST', '/v1/favourites', { key, body: { image_id: 'fav1', sub_id: 'u1' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ message: 'SUCCESS', image_id: 'fav1', sub_id: 'u1', image: { id: 'fav1', url: null } });
    expectEnvelope(await service.request('POST', '/v1/favourites', { key, body: { image_id: 'fav1', sub_id: 'u1' } }), 409, 'duplicate_favourite');
    const otherSub = await service.request('POST', '/v1/favourites', { key, body: { image_id: 'fav1', sub_id: 'u2' } });
    expect(otherSub.status).toBe(201);
    const list = await service.request('GET', '/v1/favourites?image_id=fav1', { key });
    expect(list.body.map((f: { id: number }) => f.id)).toEqual([created.body.id, otherSub.body.id]);
    const one = await service.request('GET', `/v1/favourites/${created.body.id}?attach_image=1`, { key });
    expect(one.body).toMatchObject({ id: created.body.id, image: { id: 'fav1', url: null }, is_deleted: false });
  });

  it('lets exactly one of many concurrent duplicate favourites win', async () => {
    const account = await service.createAccount();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => service.request('POST', '/v1/favourites', { key: account.api_key, body: { image_id: 'race', sub_id: 's' } })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    for (const response of responses.filter((r) => r.status !== 201)) expectEnvelope(response, 409, 'duplicate_favourite');
    const list = await service.request('GET', '/v1/favourites', { key: account.api_key });
    expect(list.body).toHaveLength(1);
  });

  it('soft-deletes: hidden by default, listed with is_deleted=true, and can be favourited again', async () => {
    const account = await service.createAccount();
    const created = await service.request('POST', '/v1/favourites', { key: account.api_key, body: { image_id: 'soft' } });
    expect((await service.request('DELETE', `/v1/favourites/${created.body.id}`, { key: account.api_key })).status).toBe(200);
    expect((await service.request('GET', '/v1/favourites', { key: account.api_key })).body).toEqual([]);
    expectEnvelope(await service.request('GET', `/v1/favourites/${created.body.id}`, { key: account.api_key }), 404, 'not_found');
    expectEnvelope(await service.request('DELETE', `/v1/favourites/${created.body.id}`, { key: account.api_key }), 404, 'not_found');
    const withDeleted = await service.request('GET', '/v1/favourites?is_deleted=true', { key: account.api_key });
    expect(withDeleted.body).toHaveLength(1);
    expect(withDeleted.body[0]).toMatchObject({ id: created.body.id, is_deleted: true });
    const again = await service.request('POST', '/v1/favourites', { key: account.api_key, body: { image_id: 'soft' } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(created.body.id);
  });
});

describe('usage per sub_id', () => {
  it('counts votes and favourites per sub_id within a date window', async () => {
    const account = await service.createAccount();
    const k = account.api_key;
    await service.request('POST', '/v1/votes', { key: k, body: { image_id: 'a', value: 1, sub_id: 'alice' } });
    await service.request('POST', '/v1/votes', { key: k, body: { image_id: 'b', value: -1, sub_id: 'alice' } });
    await service.request('POST', '/v1/votes', { key: k, body: { image_id: 'c', value: 1 } });
    await service.request('POST', '/v1/favourites', { key: k, body: { image_id: 'a', sub_id: 'bob' } });
    const usage = await service.request('GET', '/v1/accounts/usage', { key: k });
    expect(usage.status).toBe(200);
    expect(usage.body).toEqual([
      { sub_id: null, images: 0, votes: 1, favourites: 0, pets: 0 },
      { sub_id: 'alice', images: 0, votes: 2, favourites: 0, pets: 0 },
      { sub_id: 'bob', images: 0, votes: 0, favourites: 1, pets: 0 },
    ]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await service.request('GET', `/v1/accounts/usage?start_date=${today}&end_date=${today}`, { key: k })).body).toHaveLength(3);
    expect((await service.request('GET', '/v1/accounts/usage?end_date=2000-01-01', { key: k })).body).toEqual([]);
    expectEnvelope(await service.request('GET', '/v1/accounts/usage?start_date=yesterday', { key: k }), 400, 'validation_failed');
    expectEnvelope(await service.request('GET', '/v1/accounts/usage?start_date=2020-02-01&end_date=2020-01-01', { key: k }), 400, 'validation_failed');
  });
});

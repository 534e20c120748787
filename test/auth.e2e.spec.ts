import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.dispose();
});

describe('authentication and authorization', () => {
  it('answers 403 without a key and with an unknown key', async () => {
    expectEnvelope(await service.request('GET', '/v1/votes'), 403, 'missing_api_key');
    expectEnvelope(await service.request('GET', '/v1/votes', { key: 'live_nope' }), 403, 'invalid_api_key');
  });

  it('uses a freshly created key at once (read-your-writes on authentication)', async () => {
    const { api_key } = await service.createAccount();
    const response = await service.request('GET', '/v1/votes', { key: api_key });
    expect(response.status).toBe(200);
  });

  it('answers 401 for a deactivated account and keeps it so', async () => {
    const { account_id, api_key } = await service.createAccount();
    expect((await service.request('POST', `/v1/admin/accounts/${account_id}/deactivate`, { key: ADMIN_KEY })).status).toBe(200);
    expectEnvelope(await service.request('GET', '/v1/votes', { key: api_key }), 401, 'account_inactive');
    expectEnvelope(await service.request('POST', '/v1/votes', { key: api_key, body: { image_id: 'x', value: 1 } }), 401, 'account_inactive');
  });

  it('issues a second key and revokes a leaked one without deactivating the account', async () => {
    const { account_id, api_key: leaked, key_id: leakedId } = await service.createAccount();
    expect(leakedId).toMatch(/^[0-9a-f]{16}$/);
    const issued = await service.request('POST', `/v1/admin/accounts/${account_id}/keys`, { key: ADMIN_KEY });
    expect(issued.status).toBe(201);
    expect(issued.body.api_key).toMatch(/^live_/);
    // The new key works on the very next request, next to the old one.
    expect((await service.request('GET', '/v1/votes', { key: issued.body.api_key })).status).toBe(200);
    expect((await service.request('GET', '/v1/votes', { key: leaked })).status).toBe(200);
    expect((await service.request('DELETE', `/v1/admin/accounts/${account_id}/keys/${leakedId}`, { key: ADMIN_KEY })).body).toEqual({ message: 'SUCCESS' });
    expectEnvelope(await service.request('GET', '/v1/votes', { key: leaked }), 403, 'invalid_api_key');
    expect((await service.request('GET', '/v1/votes', { key: issued.body.api_key })).status).toBe(200);
    // Revoking again changes nothing; unknown keys and accounts are 404; account keys may not revoke.
    expect((await service.request('DELETE', `/v1/admin/accounts/${account_id}/keys/${leakedId}`, { key: ADMIN_KEY })).status).toBe(200);
    expectEnvelope(await service.request('DELETE', `/v1/admin/accounts/${account_id}/keys/nope`, { key: ADMIN_KEY }), 404, 'not_found');
    expectEnvelope(await service.request('POST', '/v1/admin/accounts/nope/keys', { key: ADMIN_KEY }), 404, 'not_found');
    expectEnvelope(await service.request('DELETE', `/v1/admin/accounts/${account_id}/keys/${issued.body.key_id}`, { key: issued.body.api_key }), 403, 'admin_only');
  });

  it('keeps the admin surface for the admin key only', async () => {
    const { api_key } = await service.createAccount();
    expectEnvelope(await service.request('POST', '/v1/admin/accounts', { key: api_key, body: { name: 'x' } }), 403, 'admin_only');
    expectEnvelope(await service.request('POST', '/v1/admin/accounts', { body: { name: 'x' } }), 403, 'missing_api_key');
    expectEnvelope(await service.request('GET', '/v1/votes', { key: ADMIN_KEY }), 403, 'invalid_api_key');
    expectEnvelope(await service.request('POST', '/v1/admin/accounts/nope/deactivate', { key: ADMIN_KEY }), 404, 'not_found');
  });

  it('validates admin input and refuses unknown features with one message each', async () => {
    const response = await service.request('POST', '/v1/admin/accounts', { key: ADMIN_KEY, body: { name: 'x', features: ['votes', 'warp', 'teleport'] } });
    const body = expectEnvelope(response, 400, 'unknown_feature');
    expect(body.message).toHaveLength(2);
    expectEnvelope(await service.request('POST', '/v1/admin/accounts', { key: ADMIN_KEY, body: { email: 'not-an-email' } }), 400, 'validation_failed');
  });

  it('lists features and enforces a missing feature with 403 naming it', async () => {
    const { account_id, api_key } = await service.createAccount({ features: ['favourites'] });
    const features = await service.request('GET', '/v1/accounts/features', { key: api_key });
    expect(features.status).toBe(200);
    const names = features.body.map((f: { name: string }) => f.name);
    expect(names).toEqual(expect.arrayContaining(['votes', 'favourites', 'body_condition', 'calculators']));
    expect(features.body.find((f: { name: string }) => f.name === 'votes').enabled).toBe(false);
    const denied = expectEnvelope(await service.request('GET', '/v1/votes', { key: api_key }), 403, 'feature_not_enabled');
    expect(denied.message).toContain('votes');
    expect(denied.feature).toBe('votes');
    expect((await service.request('PUT', `/v1/admin/accounts/${account_id}/features`, { key: ADMIN_KEY, body: { features: ['votes'] } })).status).toBe(200);
    expect((await service.request('GET', '/v1/votes', { key: api_key })).status).toBe(200);
    expectEnvelope(await service.request('GET', '/v1/favourites', { key: api_key }), 403, 'feature_not_enabled');
  });

  it('lets an account switch a capability off and on (403 capability_disabled meanwhile)', async () => {
    const { api_key } = await service.createAccount();
    const off = await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: { capabilities: { votes: false } } });
    expect(off.status).toBe(200);
    expect(off.body.find((c: { name: string }) => c.name === 'votes').enabled).toBe(false);
    const denied = expectEnvelope(await service.request('POST', '/v1/votes', { key: api_key, body: { image_id: 'i', value: 1 } }), 403, 'capability_disabled');
    expect(denied.message).toContain('votes');
    const listed = await service.request('GET', '/v1/accounts/capabilities', { key: api_key });
    expect(listed.body.find((c: { name: string }) => c.name === 'votes').enabled).toBe(false);
    expect((await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: { capabilities: { votes: true } } })).status).toBe(200);
    expect((await service.request('POST', '/v1/votes', { key: api_key, body: { image_id: 'i', value: 1 } })).status).toBe(201);
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: { capabilities: { warp: true } } }), 400, 'unknown_feature');
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: { capabilities: {} } }), 400, 'validation_failed');
  });

  it('forbids another account’s vote and favourite with 403, missing ones with 404', async () => {
    const a = await service.createAccount();
    const b = await service.createAccount();
    const vote = await service.request('POST', '/v1/votes', { key: a.api_key, body: { image_id: 'img1', value: 1 } });
    const favourite = await service.request('POST', '/v1/favourites', { key: a.api_key, body: { image_id: 'img1' } });
    expectEnvelope(await service.request('GET', `/v1/votes/${vote.body.id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await service.request('DELETE', `/v1/votes/${vote.body.id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await service.request('GET', `/v1/favourites/${favourite.body.id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await service.request('DELETE', `/v1/favourites/${favourite.body.id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await service.request('GET', `/v1/votes/123`, { key: b.api_key }), 404, 'not_found');
    expectEnvelope(await service.request('GET', '/v1/favourites', { key: b.api_key, headers: {} }).then(async () =>
      service.request('GET', `/v1/favourites?account_id=${a.account_id}`, { key: b.api_key })), 403, 'forbidden');
    const listB = await service.request('GET', '/v1/votes', { key: b.api_key });
    expect(listB.body).toEqual([]);
  });
});

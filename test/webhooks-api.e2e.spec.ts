import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';

/** The webhook endpoints API through real sockets; no delivery happens here (no subscribed events). */
let open: TestService; // WEBHOOK_ALLOW_PRIVATE_TARGETS=true
let strict: TestService; // the default: private targets refused
beforeAll(async () => {
  [open, strict] = await Promise.all([startTestService({ webhookAllowPrivateTargets: true, referenceDataImport: false }), startTestService({ referenceDataImport: false })]);
});
afterAll(async () => {
  await Promise.all([open.dispose(), strict.dispose()]);
});

const TOPICS = [
  'pet.bcs.review_requested',
  'pet.bcs.reviewed',
  'image.uploaded',
  'image.processed',
  'image.labels_created',
  'vote.created',
  'favourite.created',
  'pet.respiratory_rate.completed',
];

describe('webhook endpoints', () => {
  it('answers 200 or 409 conflict (with Retry-After), never 500, to 20 concurrent secret rotations of one endpoint', async () => {
    const { api_key } = await open.createAccount();
    const created = await open.request('POST', '/v1/webhooks', { key: api_key, body: { url: 'http://127.0.0.1:9/hook', enabled_events: ['vote.created'] } });
    expect(created.status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => open.request('POST', `/v1/webhooks/${created.body.id}/rotate-secret`, { key: api_key })),
    );
    for (const answer of answers) {
      if (answer.status === 200) continue;
      expectEnvelope(answer, 409, 'conflict');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
  });

  it('lists the subscribable topics', async () => {
    const { api_key } = await open.createAccount();
    const response = await open.request('GET', '/v1/webhooks/topics', { key: api_key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(TOPICS);
  });

  it('registers an endpoint: the secret is shown once, never by list or get, and never stored in plain text', async () => {
    const { api_key } = await open.createAccount();
    const created = await open.request('POST', '/v1/webhooks', {
      key: api_key,
      body: { url: 'http://127.0.0.1:9/hook', description: 'mine', enabled_events: ['vote.created', 'no.such.event'] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      message: 'SUCCESS',
      url: 'http://127.0.0.1:9/hook',
      description: 'mine',
      enabled_events: ['vote.created', 'no.such.event'],
      status: 'enabled',
      signed: true,
      consecutive_failures: 0,
      disabled_at: null,
    });
    const secret: string = created.body.signing_secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const id = created.body.id;

    const one = await open.request('GET', `/v1/webhooks/${id}`, { key: api_key });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('signing_secret');
    expect(one.body).toEqual({
      id,
      url: 'http://127.0.0.1:9/hook',
      name: null,
      description: 'mine',
      enabled_events: ['vote.created', 'no.such.event'],
      status: 'enabled',
      signed: true,
      consecutive_failures: 0,
      created_at: created.body.created_at,
      disabled_at: null,
      secret_rotated_at: null,
    });
    const list = await open.request('GET', '/v1/webhooks', { key: api_key });
    expect(list.body).toEqual([one.body]);

    const rotated = await open.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: api_key });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ message: 'SUCCESS', id, signing_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.signing_secret).not.toBe(secret);
    const after = await open.request('GET', `/v1/webhooks/${id}`, { key: api_key });
    expect(after.body.secret_rotated_at).not.toBeNull();

    for (const text of [JSON.stringify(one.body), JSON.stringify(list.body), JSON.stringify(after.body)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(rotated.body.signing_secret);
      expect(text).not.toContain('whsec_');
    }
    const events = JSON.stringify(await open.adapters.eventStore.readAll(), (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
    expect(events).toContain(id);
    expect(events).not.toContain(secret);
    expect(events).not.toContain(rotated.body.signing_secret);
    expect(events).not.toContain(secret.slice(6));
  });

  it('validates input precisely and appends nothing for bad input', async () => {
    const { api_key } = await open.createAccount();
    const head = await open.adapters.eventStore.headPosition();
    const bad: [unknown, string][] = [
      [{ enabled_events: ['vote.created'] }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:9/x' }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:9/x', enabled_events: 'vote.created' }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:9/x', enabled_events: [], extra: 1 }, 'validation_failed'],
      [{ url: 'http://127.0.0.1:9/x', enabled_events: [''] }, 'validation_failed'],
      [{ url: 'not a url', enabled_events: [] }, 'webhook_url_not_allowed'],
      [{ url: 'ftp://example.com/x', enabled_events: [] }, 'webhook_url_not_allowed'],
    ];
    for (const [body, code] of bad) expectEnvelope(await open.request('POST', '/v1/webhooks', { key: api_key, body }), 400, code);
    expectEnvelope(await open.request('POST', '/v1/webhooks', { key: api_key, raw: '{"url":', headers: { 'content-type': 'application/json' } }), 400, 'invalid_json');
    expect(await open.adapters.eventStore.headPosition()).toBe(head);
  });

  it('refuses private, loopback, link-local, CGNAT, ULA and metadata targets at registration', async () => {
    const { api_key } = await strict.createAccount();
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://10.1.2.3/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/hook',
      'http://[fd00:ec2::254]/',
      'http://[fd12::1]/hook',
      'http://100.64.0.1/hook',
      'http://localhost:8080/hook',
      'http://0x7f000001/hook',
    ]) {
      const response = await strict.request('POST', '/v1/webhooks', { key: api_key, body: { url, enabled_events: ['vote.created'] } });
      const body = expectEnvelope(response, 400, 'webhook_url_not_allowed');
      expect(body.message).toMatch(/not allowed/);
    }
    expect((await strict.request('GET', '/v1/webhooks', { key: api_key })).body).toEqual([]);
  });

  it('allows at most five endpoints per account, also under concurrent creates', async () => {
    const { api_key } = await open.createAccount();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        open.request('POST', '/v1/webhooks', { key: api_key, body: { url: `http://127.0.0.1:9/hook${i}`, enabled_events: ['vote.created'] } }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(7).fill(409)]);
    for (const response of responses.filter((r) => r.status === 409)) expectEnvelope(response, 409, 'webhook_limit_reached');
    const list = await open.request('GET', '/v1/webhooks', { key: api_key });
    expect(list.body).toHaveLength(5);
    // a delete frees a slot
    expect((await open.request('DELETE', `/v1/webhooks/${list.body[0].id}`, { key: api_key })).body).toEqual({ message: 'SUCCESS' });
    expectEnvelope(await open.request('GET', `/v1/webhooks/${list.body[0].id}`, { key: api_key }), 404, 'not_found');
    expectEnvelope(await open.request('DELETE', `/v1/webhooks/${list.body[0].id}`, { key: api_key }), 404, 'not_found');
    expect((await open.request('POST', '/v1/webhooks', { key: api_key, body: { url: 'http://127.0.0.1:9/again', enabled_events: [] } })).status).toBe(201);
    expectEnvelope(await open.request('POST', '/v1/webhooks', { key: api_key, body: { url: 'http://127.0.0.1:9/more', enabled_events: [] } }), 409, 'webhook_limit_reached');
  });

  it('answers 403 for another account’s endpoint and 404 for a missing one', async () => {
    const a = await open.createAccount();
    const b = await open.createAccount();
    const created = await open.request('POST', '/v1/webhooks', { key: a.api_key, body: { url: 'http://127.0.0.1:9/a', enabled_events: [] } });
    const id = created.body.id;
    expectEnvelope(await open.request('GET', `/v1/webhooks/${id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await open.request('DELETE', `/v1/webhooks/${id}`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await open.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await open.request('GET', `/v1/webhooks/${id}/deliveries`, { key: b.api_key }), 403, 'forbidden');
    expectEnvelope(await open.request('POST', `/v1/webhooks/${id}/deliveries/abc/redeliver`, { key: b.api_key }), 403, 'forbidden');
    expect((await open.request('GET', '/v1/webhooks', { key: b.api_key })).body).toEqual([]);
    for (const [method, path] of [
      ['GET', '/v1/webhooks/nope'],
      ['DELETE', '/v1/webhooks/nope'],
      ['POST', '/v1/webhooks/nope/rotate-secret'],
      ['GET', '/v1/webhooks/nope/deliveries'],
      ['POST', `/v1/webhooks/${id}/deliveries/nope/redeliver`],
    ]) {
      expectEnvelope(await open.request(method, path, { key: a.api_key }), 404, 'not_found');
    }
    expectEnvelope(await open.request('GET', `/v1/webhooks/${id}/deliveries?limit=0`, { key: a.api_key }), 400, 'validation_failed');
  });

  it('needs the webhooks feature', async () => {
    const { api_key } = await open.createAccount({ features: ['votes'] });
    expectEnvelope(await open.request('GET', '/v1/webhooks', { key: api_key }), 403, 'feature_not_enabled');
    expectEnvelope(await open.request('POST', '/v1/webhooks', { key: api_key, body: { url: 'http://127.0.0.1:9/', enabled_events: [] } }), 403, 'feature_not_enabled');
  });

  it('sets legacy_unsigned only through the admin import', async () => {
    const { account_id, api_key } = await open.createAccount();
    expectEnvelope(
      await open.request('POST', '/v1/webhooks', { key: api_key, body: { url: 'http://127.0.0.1:9/', enabled_events: [], legacy_unsigned: true } }),
      400,
      'validation_failed',
    );
    expectEnvelope(
      await open.request('POST', '/v1/admin/webhooks', { key: api_key, body: { account_id, url: 'http://127.0.0.1:9/', enabled_events: [], legacy_unsigned: true } }),
      403,
      'admin_only',
    );
    const imported = await open.request('POST', '/v1/admin/webhooks', {
      key: ADMIN_KEY,
      body: { account_id, url: 'http://127.0.0.1:9/legacy', enabled_events: ['vote.created'], legacy_unsigned: true },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    expect(imported.body).toMatchObject({ signed: false, signing_secret: null });
    expect((await open.request('GET', `/v1/webhooks/${imported.body.id}`, { key: api_key })).body.signed).toBe(false);
    await open.request('POST', `/v1/webhooks/${imported.body.id}/rotate-secret`, { key: api_key });
    expect((await open.request('GET', `/v1/webhooks/${imported.body.id}`, { key: api_key })).body.signed).toBe(true);
    expectEnvelope(
      await open.request('POST', '/v1/admin/webhooks', { key: ADMIN_KEY, body: { account_id: 'nobody', url: 'http://127.0.0.1:9/', enabled_events: [] } }),
      404,
      'not_found',
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { startReceiver, verifySignature, waitUntil, type Receiver } from './webhook-receiver.ts';

/**
 * Deliveries from domain events to real local receivers (127.0.0.1 with
 * WEBHOOK_ALLOW_PRIVATE_TARGETS on). Timing checks measure at the receiver, with wide tolerances.
 */
let service: TestService;
const receivers: Receiver[] = [];
beforeAll(async () => {
  service = await startTestService({ webhookAllowPrivateTargets: true, referenceDataImport: false });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await service.dispose();
});

const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
};

const register = async (key: string, url: string, events = ['vote.created']) => {
  const response = await service.request('POST', '/v1/webhooks', { key, body: { url, description: 'test', enabled_events: events } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; signing_secret: string };
};

const vote = async (key: string, body: Record<string, unknown> = {}) => {
  const response = await service.request('POST', '/v1/votes', { key, body: { image_id: 'img1', value: 1, sub_id: 'u1', ...body } });
  expect(response.status).toBe(201);
  return response.body;
};

const deliveries = async (key: string, webhookId: string) => (await service.request('GET', `/v1/webhooks/${webhookId}/deliveries`, { key })).body;

describe('webhook delivery', () => {
  it('delivers vote.created: the Vote plus _metadata, signed (independent HMAC check, 300 s rule)', async () => {
    const { api_key } = await service.createAccount();
    const hook = await receiver();
    const { id, signing_secret } = await register(api_key, hook.url);
    const created = await vote(api_key, { country_code: 'de' });
    const [got] = await hook.waitFor(1);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-webhook-event']).toBe('vote.created');
    const body = JSON.parse(got.body);
    const { message: _message, ...asReturned } = created;
    expect(body).toEqual({
      ...asReturned,
      _metadata: { event_type: 'vote.created', event_id: expect.any(String), timestamp: expect.any(String), country_code: 'DE' },
    });
    const header = got.headers['x-webhook-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature(header, got.body, signing_secret)).toBe(true);
    expect(verifySignature(header, got.body, signing_secret, Math.floor(Date.now() / 1000) + 301)).toBe(false);
    expect(Math.abs(Number(/t=(\d+)/.exec(header)![1]) - Date.now() / 1000)).toBeLessThan(30);

    const log = await waitUntil(async () => {
      const list = await deliveries(api_key, id);
      return list[0]?.status === 'succeeded' && list;
    });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ webhook_id: id, event_type: 'vote.created', event_id: body._metadata.event_id, next_attempt_at: null });
    expect(log[0].attempts).toEqual([{ attempt: 1, started_at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, error: null, outcome: 'succeeded' }]);
    expect(log[0].payload).toEqual(body);
  });

  it('delivers favourite.created only to endpoints subscribed to it; unknown names never fire', async () => {
    const { api_key } = await service.createAccount();
    const favourites = await receiver();
    const votesOnly = await receiver();
    await register(api_key, favourites.url, ['favourite.created', 'made.up']);
    await register(api_key, votesOnly.url, ['vote.created']);
    const fav = await service.request('POST', '/v1/favourites', { key: api_key, body: { image_id: 'fav1', sub_id: 's' } });
    expect(fav.status).toBe(201);
    const [got] = await favourites.waitFor(1);
    expect(JSON.parse(got.body)).toMatchObject({ id: fav.body.id, image_id: 'fav1', sub_id: 's', is_deleted: false, _metadata: { event_type: 'favourite.created' } });
    await vote(api_key);
    await votesOnly.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(favourites.received).toHaveLength(1);
    expect(votesOnly.received).toHaveLength(1);
  });

  it('rotation: the next delivery verifies with the new secret only', async () => {
    const { api_key } = await service.createAccount();
    const hook = await receiver();
    const { id, signing_secret: old } = await register(api_key, hook.url);
    const rotated = await service.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: api_key });
    const fresh: string = rotated.body.signing_secret;
    await vote(api_key);
    const [got] = await hook.waitFor(1);
    const header = got.headers['x-webhook-signature'] as string;
    expect(verifySignature(header, got.body, fresh)).toBe(true);
    expect(verifySignature(header, got.body, old)).toBe(false);
  });

  it('retries signed with the secret current at each attempt (rotation mid-retry)', async () => {
    const { api_key } = await service.createAccount();
    const hook = await receiver((index) => (index === 0 ? 500 : 200));
    const { id, signing_secret: old } = await register(api_key, hook.url);
    await vote(api_key);
    const [first] = await hook.waitFor(1);
    expect(verifySignature(first.headers['x-webhook-signature'] as string, first.body, old)).toBe(true);
    const fresh: string = (await service.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: api_key })).body.signing_secret;
    const [, second] = await hook.waitFor(2, 8000);
    expect(second.body).toBe(first.body);
    expect(verifySignature(second.headers['x-webhook-signature'] as string, second.body, fresh)).toBe(true);
    expect(verifySignature(second.headers['x-webhook-signature'] as string, second.body, old)).toBe(false);
  });

  it('makes exactly three attempts with 1 s then 2 s backoff (measured at the receiver), then gives up', async () => {
    const { api_key } = await service.createAccount();
    const hook = await receiver(() => 500);
    const { id } = await register(api_key, hook.url);
    await vote(api_key);
    const [a, b, c] = await hook.waitFor(3, 15_000);
    const first = b.at - a.at;
    const second = c.at - b.at;
    expect(first).toBeGreaterThanOrEqual(950);
    expect(first).toBeLessThan(2600);
    expect(second).toBeGreaterThanOrEqual(1950);
    expect(second).toBeLessThan(4000);
    expect(second).toBeGreaterThan(first);
    expect([a, b, c].map((request) => request.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set([a.body, b.body, c.body]).size).toBe(1);
    const log = await waitUntil(async () => {
      const list = await deliveries(api_key, id);
      return list[0]?.status === 'failed' && list;
    });
    expect(log[0].attempts.map((attempt: { status_code: number; outcome: string }) => [attempt.status_code, attempt.outcome])).toEqual([
      [500, 'retrying'],
      [500, 'retrying'],
      [500, 'failed'],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hook.received).toHaveLength(3);
    expect((await service.request('GET', `/v1/webhooks/${id}`, { key: api_key })).body).toMatchObject({ status: 'enabled', consecutive_failures: 3 });

    // redeliver: a new round; this time the receiver answers
    hook.respond = () => 200;
    const again = await service.request('POST', `/v1/webhooks/${id}/deliveries/${log[0].id}/redeliver`, { key: api_key });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ message: 'SUCCESS', id: log[0].id, status: 'pending' });
    const [, , , fourth] = await hook.waitFor(4);
    expect(fourth.body).toBe(a.body);
    const done = await waitUntil(async () => {
      const list = await deliveries(api_key, id);
      return list[0]?.status === 'succeeded' && list;
    });
    expect(done[0].attempts).toHaveLength(4);
    expect((await service.request('GET', `/v1/webhooks/${id}`, { key: api_key })).body.consecutive_failures).toBe(0);
  });

  it('sends legacy endpoints unsigned until their secret is rotated', async () => {
    const { account_id, api_key } = await service.createAccount();
    const hook = await receiver();
    const imported = await service.request('POST', '/v1/admin/webhooks', {
      key: (await import('./service.ts')).ADMIN_KEY,
      body: { account_id, url: hook.url, enabled_events: ['vote.created'], legacy_unsigned: true },
    });
    expect(imported.status).toBe(201);
    await vote(api_key);
    const [unsigned] = await hook.waitFor(1);
    expect(unsigned.headers['x-webhook-signature']).toBeUndefined();
    const secret = (await service.request('POST', `/v1/webhooks/${imported.body.id}/rotate-secret`, { key: api_key })).body.signing_secret;
    await vote(api_key);
    const [, signed] = await hook.waitFor(2);
    expect(verifySignature(signed.headers['x-webhook-signature'] as string, signed.body, secret)).toBe(true);
  });
});

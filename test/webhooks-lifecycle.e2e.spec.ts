import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { startReceiver, waitUntil, type Receiver } from './webhook-receiver.ts';

/** Timeouts, disabling after ten failures (with the owner's e-mail), and deliveries surviving a restart. */
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

const register = async (key: string, url: string) => {
  const response = await service.request('POST', '/v1/webhooks', { key, body: { url, enabled_events: ['vote.created'] } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; signing_secret: string };
};

const vote = async (key: string, imageId: string) => {
  const response = await service.request('POST', '/v1/votes', { key, body: { image_id: imageId, value: 1 } });
  expect(response.status).toBe(201);
};

const deliveries = async (key: string, webhookId: string) => (await service.request('GET', `/v1/webhooks/${webhookId}/deliveries`, { key })).body;

const mails = async (dataDir: string): Promise<string[]> => {
  const dir = join(dataDir, 'mail');
  const files = await readdir(dir).catch(() => [] as string[]);
  return Promise.all(files.filter((file) => file.endsWith('.eml')).map((file) => readFile(join(dir, file), 'utf8')));
};

describe('webhook endpoint lifecycle', () => {
  it('a hanging receiver (timeout) never delays a healthy one', async () => {
    const { api_key } = await service.createAccount();
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver(() => 200);
    const slow = await register(api_key, hanging.url);
    await register(api_key, healthy.url);
    await vote(api_key, 'h1');
    await hanging.waitFor(1);
    const t0 = performance.now();
    await vote(api_key, 'h2');
    await vote(api_key, 'h3');
    await healthy.waitFor(3, 4000);
    expect(performance.now() - t0).toBeLessThan(4000); // well before the hanging one's 5 s timeout
    const log = await waitUntil(
      async () => {
        const list = await deliveries(api_key, slow.id);
        const attempted = list.find((delivery: { attempts: unknown[] }) => delivery.attempts.length > 0);
        return attempted;
      },
      12_000,
      'the first timed-out attempt',
    );
    expect(log.attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 5000 ms', outcome: 'retrying' });
    expect(log.attempts[0].duration_ms).toBeGreaterThanOrEqual(4900);
    // still being attempted: a redelivery is refused until this round is over
    expectEnvelope(await service.request('POST', `/v1/webhooks/${slow.id}/deliveries/${log.id}/redeliver`, { key: api_key }), 409, 'delivery_pending');
    await hanging.close(); // its remaining attempts now fail at once instead of holding the next tests' restart
  });

  it('disables an endpoint after 10 consecutive failed attempts, e-mails the owner, and never enables it again', async () => {
    const { api_key } = await service.createAccount({ email: 'owner@example.test' });
    const hook = await receiver(() => 503);
    const { id, signing_secret } = await register(api_key, hook.url);
    for (let i = 0; i < 4; i++) await vote(api_key, `dead${i}`);

    const disabled = await waitUntil(
      async () => {
        const endpoint = (await service.request('GET', `/v1/webhooks/${id}`, { key: api_key })).body;
        return endpoint.status === 'disabled' && endpoint;
      },
      20_000,
      'the endpoint to be disabled',
    );
    expect(disabled.consecutive_failures).toBe(10);
    expect(disabled.disabled_at).not.toBeNull();
    expect(hook.received.length).toBeGreaterThanOrEqual(10);
    expect(hook.received.length).toBeLessThanOrEqual(12);

    const mail = await waitUntil(async () => (await mails(service.dataDir)).find((text) => text.includes(hook.url)), 10_000, 'the e-mail');
    expect(mail).toContain('To: owner@example.test');
    expect(mail).toMatch(/Subject: Webhook endpoint disabled: http:\/\/127\.0\.0\.1:\d+\/hook/);
    expect(mail).toContain('10 consecutive failed delivery attempts');
    expect(mail).not.toContain(signing_secret);

    // every delivery is over (failed, or abandoned once the endpoint was disabled); nothing new is sent
    await waitUntil(async () => (await deliveries(api_key, id)).every((d: { status: string }) => d.status !== 'pending'), 10_000, 'deliveries to settle');
    const settled = hook.received.length;
    await vote(api_key, 'after');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(hook.received.length).toBe(settled);
    const log = await deliveries(api_key, id);
    expect(log).toHaveLength(4);
    expectEnvelope(await service.request('POST', `/v1/webhooks/${id}/deliveries/${log[0].id}/redeliver`, { key: api_key }), 409, 'webhook_disabled');
    await service.request('POST', `/v1/webhooks/${id}/rotate-secret`, { key: api_key });
    expect((await service.request('GET', `/v1/webhooks/${id}`, { key: api_key })).body.status).toBe('disabled');

    // a disabled endpoint still counts toward the limit of five
    for (let i = 0; i < 4; i++) await register(api_key, `${hook.url}/${i}`);
    expectEnvelope(
      await service.request('POST', '/v1/webhooks', { key: api_key, body: { url: `${hook.url}/5`, enabled_events: [] } }),
      409,
      'webhook_limit_reached',
    );
    expect((await mails(service.dataDir)).filter((text) => text.includes('owner@example.test'))).toHaveLength(1);
  });

  it('completes a delivery that was mid-retry when the service restarted', async () => {
    const hook = await receiver((index) => (index === 0 ? 500 : 200));
    const { api_key } = await service.createAccount();
    const { id } = await register(api_key, hook.url);
    await vote(api_key, 'restart');
    const [first] = await hook.waitFor(1);
    await waitUntil(async () => (await deliveries(api_key, id))[0]?.attempts.length === 1, 5000, 'the first attempt to be recorded');

    service = await service.restart();

    const [, second] = await hook.waitFor(2, 30_000);
    expect(second.body).toBe(first.body);
    expect(second.headers['x-webhook-attempt']).toBe('2');
    const log = await waitUntil(async () => {
      const list = await deliveries(api_key, id);
      return list[0]?.status === 'succeeded' && list;
    });
    expect(log[0].attempts.map((attempt: { status_code: number }) => attempt.status_code)).toEqual([500, 200]);
  });

  it('refuses a private target at connect time once private targets are no longer allowed', async () => {
    const hook = await receiver(() => 200);
    const { api_key } = await service.createAccount();
    const { id } = await register(api_key, hook.url); // accepted while allowed

    await service.stop();
    service = await startTestService({ webhookAllowPrivateTargets: false, referenceDataImport: false }, service.dataDir);

    await vote(api_key, 'ssrf');
    const [delivery] = await waitUntil(
      async () => {
        const list = await deliveries(api_key, id);
        return list[0]?.attempts.length > 0 && list;
      },
      15_000,
      'a refused attempt',
    );
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, outcome: 'retrying' });
    expect(delivery.attempts[0].error).toMatch(/127\.0\.0\.1 is not allowed \(loopback\)/);
    expect(hook.received).toHaveLength(0);
  });
});

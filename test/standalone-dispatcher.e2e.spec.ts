import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { startProcess, type ServiceProcess as EntryProcess } from './processes.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';
import { ADMIN_KEY } from './service.ts';

/**
 * The standalone dispatcher of docs/operations.md (Scaling readers and writers): `npm start` with RUN_WEBHOOK_DISPATCHER=false and
 * `npm run start:webhook-dispatcher` on the same DATA_DIR (embedded read store, event store and bus).
 * The dispatcher process reads read models another process writes: endpoints registered after it
 * started must be seen, and every event delivered once per endpoint.
 */
describe('standalone webhook dispatcher on the embedded store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'standalone-dispatcher-'));
  let service: ServiceProcess;
  let dispatcher: EntryProcess;
  let receiver: Receiver;
  const env = { DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', REFERENCE_DATA_IMPORT: 'false' };

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startServiceProcess({ ...env, RUN_WEBHOOK_DISPATCHER: 'false' });
    dispatcher = startProcess('dispatcher', 'webhook-dispatcher/main.ts', { ...env, LOG_LEVEL: 'info' });
    const deadline = Date.now() + 30_000;
    while (!dispatcher.output().includes('webhook dispatcher started')) {
      if (Date.now() > deadline || dispatcher.child.exitCode !== null) throw new Error(`dispatcher did not start: ${dispatcher.output()}`);
      await delay(100);
    }
  }, 60_000);
  afterAll(async () => {
    await dispatcher?.kill();
    await service?.stop('SIGTERM');
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  const deliveries = (endpoint: string) =>
    receiver.received.filter((request) => request.path.endsWith(`ep=${endpoint}`)).map((request) => JSON.parse(request.body)._metadata.event_id as string);

  it('sees endpoints registered after it started, and delivers every vote once per endpoint', async () => {
    const account = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'hooks' });
    const key = account.body.api_key as string;
    const register = async (name: string) => {
      const created = await call('POST', '/v1/webhooks', key, { url: `${receiver.url}?ep=${name}`, enabled_events: ['vote.created'] });
      expect(created.status).toBe(201);
    };
    const vote = async (n: number) => {
      for (let i = 0; i < n; i++) expect((await call('POST', '/v1/votes', key, { image_id: `img${i}`, value: 1 })).status).toBe(201);
    };

    await register('A');
    await vote(5);
    await receiver.waitFor(5, 20_000);
    // Registered after the dispatcher has read the endpoints once.
    await register('B');
    await vote(5);
    await receiver.waitFor(15, 20_000);
    await delay(1_000); // nothing more, nothing twice
    const toA = deliveries('A');
    const toB = deliveries('B');
    expect(toA).toHaveLength(10);
    expect(new Set(toA).size).toBe(10);
    expect(toB).toHaveLength(5);
    expect(new Set(toB).size).toBe(5);
    expect(toB.every((id) => toA.includes(id))).toBe(true);
  }, 60_000);
});

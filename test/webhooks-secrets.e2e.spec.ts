import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, waitForHttp, type ServiceProcess } from './processes.ts';
import { startReceiver, verifySignature, waitUntil, type Receiver } from './webhook-receiver.ts';

/**
 * The real service process at LOG_LEVEL=trace: signing secrets appear in the API answers that
 * issue them and nowhere else — not in its logs, not in any file under DATA_DIR (events, read
 * models, bus); the key that encrypts them is DATA_DIR/secrets.key, mode 0600.
 */
const ADMIN = 'secrets-test-admin-key-0123456789';
let dataDir: string;
let service: ServiceProcess;
let base: string;
let hook: Receiver;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
  hook = await startReceiver((index) => (index === 0 ? 500 : 200));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = startProcess('all-in-one', 'runtime/main.ts', {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ADMIN_API_KEY: ADMIN,
    LOG_LEVEL: 'trace',
    DEMO_ACCOUNT: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    SECRETS_KEY: '',
    REFERENCE_DATA_IMPORT: 'false',
  });
  await waitForHttp(`${base}/health`, 60_000, service);
}, 90_000);

afterAll(async () => {
  await service?.kill();
  await hook?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]));

describe('signing secrets stay secret', () => {
  it('never appear in logs or stored files, only in the create/rotate answers', async () => {
    const account = await call('POST', '/v1/admin/accounts', ADMIN, { name: 'Secrets' });
    const key: string = account.body.api_key;
    const created = await call('POST', '/v1/webhooks', key, { url: hook.url, enabled_events: ['vote.created'] });
    expect(created.status).toBe(201);
    const first: string = created.body.signing_secret;
    const rotated = await call('POST', `/v1/webhooks/${created.body.id}/rotate-secret`, key);
    const second: string = rotated.body.signing_secret;
    expect((await call('POST', '/v1/votes', key, { image_id: 'secret-img', value: 1 })).status).toBe(201);
    const [, delivered] = await hook.waitFor(2, 15_000);
    expect(verifySignature(delivered.headers['x-webhook-signature'] as string, delivered.body, second)).toBe(true);
    const list = await call('GET', '/v1/webhooks', key);
    const one = await call('GET', `/v1/webhooks/${created.body.id}`, key);
    const log = await call('GET', `/v1/webhooks/${created.body.id}/deliveries`, key);
    await waitUntil(async () => service.output().includes('"outcome":"succeeded"'), 10_000, 'the attempt log line');
    await service.kill();

    const output = service.output();
    expect(output).toContain('webhook attempt');
    expect(output).toContain('/v1/webhooks');
    for (const secret of [first, second]) {
      const bare = secret.slice('whsec_'.length);
      for (const text of [output, JSON.stringify(list.body), JSON.stringify(one.body), JSON.stringify(log.body)]) expect(text).not.toContain(bare);
      for (const file of filesUnder(dataDir)) expect(readFileSync(file).includes(bare), file).toBe(false);
    }
    expect(output).not.toContain('whsec_');
    expect(statSync(join(dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });
});

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logRedactPaths } from '../infrastructure/logger.ts';
import { secretsEqual, sha256 } from '../infrastructure/ids.ts';
import { redactUrl } from '../http/request-log.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { productionProcessEnv } from './service.ts';
import { kafkaTopicBytes, mongoDatabaseBytes } from './stored-bytes.ts';

/**
 * Secrets: API keys, the admin key and webhook signing secrets never reach a log line or the disk
 * in plain text (keys are stored as SHA-256 hashes; signing secrets encrypted), and secrets are
 * compared in constant time.
 */

const ADMIN_KEY = 'secrets-admin-key-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'secrets-'));
/** With E2E_ADAPTERS=production: the MongoDB database and Kafka namespace of this suite's service. */
const adapterEnv = productionProcessEnv(dataDir);
let service: ServiceProcess;
const secrets: { name: string; value: string }[] = [{ name: 'admin key', value: ADMIN_KEY }];
let apiKey = '';

const call = async (method: string, path: string, key: string | null, body?: unknown) => {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
};

const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

beforeAll(async () => {
  // trace: every request and response line Fastify writes, the most a misconfigured deployment would log.
  service = await startServiceProcess({ ...adapterEnv, DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'trace', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  const created = await call('POST', '/v1/admin/accounts', ADMIN_KEY, { name: 'secrets', email: 'secrets@example.org' });
  expect(created.status).toBe(201);
  apiKey = created.body.api_key;
  secrets.push({ name: 'api key', value: apiKey });

  expect((await call('GET', '/v1/votes', apiKey)).status).toBe(200);
  expect((await call('POST', '/v1/votes', apiKey, { image_id: 'secret-image', value: 1 })).status).toBe(201);
  expect((await call('POST', '/v1/votes', apiKey, { image_id: 'bad image id!', value: 7 })).status).toBe(400);
  expect((await call('GET', `/v1/votes?api_key=${apiKey}&limit=1`, apiKey)).status).toBe(200);
  // the key in the query string alone (accepted, as TheCatAPI does): still never logged
  expect((await call('GET', `/v1/votes?limit=2&api_key=${apiKey}`, null)).status).toBe(200);
  expect((await call('GET', `/v1/breeds/abys?api_key=${apiKey}x`, null)).status).toBe(403);
  expect((await call('GET', '/v1/votes', `${apiKey}x`)).status).toBe(403);

  // Webhook signing secrets, where the webhook routes exist.
  const documented = (await call('GET', '/v1/openapi.json', null)).body.paths as Record<string, unknown>;
  if ('/v1/webhooks' in documented) {
    const webhook = await call('POST', '/v1/webhooks', apiKey, { url: 'http://127.0.0.1:9/secrets-hook', enabled_events: ['vote.created'] });
    expect(webhook.status, JSON.stringify(webhook.body)).toBe(201);
    expect(webhook.body.signing_secret).toMatch(/^whsec_/);
    secrets.push({ name: 'webhook signing secret', value: webhook.body.signing_secret });
    const rotated = await call('POST', `/v1/webhooks/${webhook.body.id}/rotate-secret`, apiKey);
    if (typeof rotated.body?.signing_secret === 'string') secrets.push({ name: 'rotated signing secret', value: rotated.body.signing_secret });
  }
  await service.stop('SIGTERM');
}, 180_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('secrets in logs', () => {
  it('captured the request log of the process', () => {
    expect(service.output()).toContain('request completed');
    expect(service.output()).toContain('/v1/admin/accounts');
  });

  it('never logs an API key, the admin key or a signing secret (headers, bodies, query strings)', () => {
    const output = service.output();
    for (const secret of secrets) expect(output.includes(secret.value), `${secret.name} found in the log`).toBe(false);
    expect(output).toContain('api_key=[redacted]');
  });

  it('redacts secrets in any log line through the shared redaction paths', () => {
    const lines: string[] = [];
    const logger = pino(
      { redact: { paths: logRedactPaths, censor: '[redacted]' } },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    logger.info({ req: { headers: { 'x-api-key': 'live_leak1' } } }, 'request');
    logger.info({ api_key: 'live_leak2', account: { api_key: 'live_leak3' } }, 'created');
    logger.info({ signing_secret: 'whsec_leak4', webhook: { signing_secret: 'whsec_leak5', secret: 'whsec_leak6' } }, 'webhook');
    const text = lines.join('');
    expect(text).not.toMatch(/leak\d/);
    expect(text.match(/\[redacted\]/g)?.length).toBe(6);
    expect(redactUrl('/v1/images/search?limit=1&api_key=live_abc&x=1')).toBe('/v1/images/search?limit=1&api_key=[redacted]&x=1');
  });
});

describe('secrets at rest', () => {
  it('stores API keys only as hashes and no secret in plain text anywhere under DATA_DIR', () => {
    const files = filesUnder(dataDir);
    const contents = files.map((file) => readFileSync(file).toString('latin1'));
    for (const secret of secrets) {
      const found = files.filter((_, i) => contents[i].includes(secret.value));
      expect(found, `${secret.name} stored in plain text`).toEqual([]);
    }
    // The event store does hold the key's hash: the scan looked in the right place.
    const eventFiles = files.filter((file) => file.includes('events.db'));
    expect(eventFiles.length).toBeGreaterThan(0);
    expect(eventFiles.some((file) => readFileSync(file).toString('latin1').includes(sha256(apiKey)))).toBe(true);
  });

  it.runIf(adapterEnv.MONGO_URL !== undefined)('no secret in plain text in any MongoDB document (read models, write positions, checkpoints, blobs)', async () => {
    const collections = await mongoDatabaseBytes(adapterEnv.MONGO_URL);
    for (const secret of secrets) {
      const found = [...collections].filter(([, text]) => text.includes(secret.value)).map(([name]) => name);
      expect(found, `${secret.name} stored in plain text`).toEqual([]);
    }
    // The accounts read model holds the key's hash: the scan looked in the right place.
    expect([...collections.values()].some((text) => text.includes(sha256(apiKey)))).toBe(true);
  });

  it.runIf(adapterEnv.KAFKA_BROKERS !== undefined)('no secret in plain text in any Kafka message of the service', async () => {
    const topics = await kafkaTopicBytes(adapterEnv.KAFKA_BROKERS, adapterEnv.KAFKA_NAMESPACE);
    for (const secret of secrets) {
      const found = [...topics].filter(([, text]) => text.includes(secret.value)).map(([name]) => name);
      expect(found, `${secret.name} in a Kafka message`).toEqual([]);
    }
    // The vote went through the bus: the scan read real messages.
    expect([...topics.values()].some((text) => text.includes('secret-image'))).toBe(true);
  });
});

describe('constant-time comparison', () => {
  it('secretsEqual compares secrets of any length', () => {
    expect(secretsEqual('whsec_abc', 'whsec_abc')).toBe(true);
    expect(secretsEqual('whsec_abc', 'whsec_abd')).toBe(false);
    expect(secretsEqual('whsec_abc', 'whsec_abcd')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
  });

  it('no source file compares a key, secret or signature with === or !==', () => {
    const sources = ['http', 'command-api', 'query-api', 'infrastructure', 'webhook-dispatcher', 'processors', 'runtime'].flatMap((dir) =>
      filesUnder(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts')),
    );
    const direct = /\b(?:adminApiKey|apiKey|api_key|signing_secret|signingSecret|signature|expectedSignature)\s*[!=]==\s*(?!null\b|undefined\b|['"`])[\w.[\]]+|[\w.[\]]+\s*[!=]==\s*(?:deps\.|config\.)?(?:adminApiKey|signing_secret|signingSecret|expectedSignature)\b/;
    const offenders = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => ({ file, line: i + 1, text: line.trim() }))
        .filter(({ text }) => direct.test(text) && !text.startsWith('//') && !text.startsWith('*')),
    );
    expect(offenders).toEqual([]);
  });
});

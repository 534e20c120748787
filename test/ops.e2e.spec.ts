import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, waitForHttp, type ServiceProcess } from './processes.ts';
import { ADMIN_KEY, productionProcessEnv, startTestService, type TestService } from './service.ts';

/**
 * Operations: /metrics (token on the API port, or the separate METRICS_PORT listener), cheap
 * /health and /ready, graceful SIGTERM with a request in flight, and the same for a process
 * without an API (projectors).
 */
const TOKEN = 'metrics-token-0123456789abcdef';
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ops-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const metricValue = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
};

describe('in one process', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ referenceDataImport: false }, tempDir());
  }, 60_000);
  afterAll(async () => service?.stop());

  it('has no /metrics on the API port without METRICS_TOKEN', async () => {
    const response = await service.request('GET', '/metrics', { key: ADMIN_KEY });
    expect(response.status).toBe(404);
  });

  it('answers /health and /ready from memory: polling them reads nothing from the event store', async () => {
    const store = service.adapters.eventStore as unknown as Record<string, (...args: unknown[]) => unknown>;
    const counts: Record<string, number> = { headPosition: 0, readAll: 0, readStream: 0 };
    const originals = Object.fromEntries(Object.keys(counts).map((name) => [name, store[name]]));
    for (const name of Object.keys(counts)) {
      store[name] = (...args: unknown[]) => {
        counts[name] += 1;
        return originals[name](...args);
      };
    }
    try {
      const started = Date.now();
      for (let i = 0; i < 100; i++) {
        expect((await service.request('GET', i % 2 ? '/ready' : '/health')).status).toBe(200);
      }
      const seconds = (Date.now() - started) / 1000;
      expect(counts.readAll + counts.readStream).toBe(0);
      // Only the head cache's own refresh, once a second, whatever the polling rate.
      expect(counts.headPosition).toBeLessThanOrEqual(Math.ceil(seconds) + 1);
    } finally {
      Object.assign(store, originals);
    }
  });

  it('names the ffmpeg and ffprobe builds pet videos are read with, and the media children running', async () => {
    const text = await service.ops.metrics.registry.metrics();
    const info = /media_ffmpeg_info\{binary="ffmpeg",version="([^"]+)",source="([^"]+)",path="([^"]+)",process="all-in-one"\} 1/.exec(text);
    expect(info, text.split('\n').filter((line) => line.startsWith('media_')).join('\n')).not.toBeNull();
    expect(info![1]).not.toBe('unknown');
    expect(['system', 'env', 'npm-fallback']).toContain(info![2]);
    expect(text).toMatch(/media_ffmpeg_info\{binary="ffprobe",version="[^"]+"/);
    expect(metricValue(text, 'media_jobs', { state: 'running' })).toBe(0);
  });

  it('counts append conflicts and times appends', async () => {
    const before = await service.ops.metrics.registry.getSingleMetricAsString('eventstore_append_conflicts_total');
    await expect(
      service.ops.eventStore.append('ops-test-1', [{ id: crypto.randomUUID(), type: 'Noted', data: {}, metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: new Date().toISOString(), schema_version: 1 } }], { expectedRevision: 5n }),
    ).rejects.toThrow(/wrong expected revision/);
    expect(metricValue(before, 'eventstore_append_conflicts_total', {}) ?? Number(before.trim().split(' ').pop())).toBe(0);
    const after = await service.ops.metrics.registry.metrics();
    expect(after).toMatch(/eventstore_append_conflicts_total\{process="all-in-one"\} 1/);
    expect(metricValue(after, 'eventstore_append_duration_seconds_count', { outcome: 'conflict' })).toBe(1);
  });
});

describe('the service process', () => {
  let service: ServiceProcess;
  let base: string;
  let metricsBase: string;
  let dataDir: string;
  let key: string;

  beforeAll(async () => {
    dataDir = tempDir();
    const [port, metricsPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${port}`;
    metricsBase = `http://127.0.0.1:${metricsPort}`;
    service = startProcess('all-in-one', 'runtime/main.ts', {
      // (E2E_ADAPTERS=production: a MongoDB database and Kafka namespace of its own)
      ...productionProcessEnv(dataDir),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_API_KEY: ADMIN_KEY,
      DEMO_ACCOUNT: 'false',
      REFERENCE_DATA_IMPORT: 'false',
      METRICS_TOKEN: TOKEN,
      METRICS_PORT: String(metricsPort),
      SHUTDOWN_TIMEOUT_MS: '8000',
    });
    await waitForHttp(`${base}/health`, 60_000, service);
    const created = await fetch(`${base}/v1/admin/accounts`, {
      method: 'POST',
      headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Ops' }),
    });
    key = ((await created.json()) as { api_key: string }).api_key;
  }, 90_000);
  afterAll(async () => service?.kill('SIGKILL'));

  it('serves Prometheus metrics with the token, on the API port and on METRICS_PORT', async () => {
    const vote = await fetch(`${base}/v1/votes`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ image_id: 'm1', value: 1 }) });
    expect(vote.status).toBe(201);
    expect((await fetch(`${base}/metrics`)).status).toBe(403);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(403);
    expect((await fetch(`${metricsBase}/metrics`)).status).toBe(401);
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(metricValue(text, 'http_request_duration_seconds_count', { route: '/v1/votes', method: 'POST', status_code: '201' })).toBe(1);
    expect(metricValue(text, 'eventstore_append_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(2);
    expect(metricValue(text, 'projection_lag_events', { projection: 'votes' })).toBeGreaterThanOrEqual(0);
    // The relay runs only where a broker is configured; the embedded bus reads the log itself.
    if (productionProcessEnv(dataDir).KAFKA_BROKERS) expect(metricValue(text, 'projection_lag_seconds', { projection: 'relay' })).toBeGreaterThanOrEqual(0);
    else expect(metricValue(text, 'projection_lag_seconds', { projection: 'relay' })).toBeUndefined();
    expect(metricValue(text, 'bus_consumer_lag_messages', { group: 'webhook-dispatcher' })).toBeGreaterThanOrEqual(0);
    // The embedded bus reports the offsets its file refused (none here); Kafka's client commits itself.
    if (!productionProcessEnv(dataDir).KAFKA_BROKERS) expect(text).toMatch(/^# TYPE bus_offset_write_failures gauge$/m);
    expect(metricValue(text, 'webhook_endpoints', { status: 'disabled' })).toBe(0);
    expect(metricValue(text, 'webhook_deliveries', { status: 'succeeded' })).toBe(0);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds\{process="all-in-one"\} /m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes\{process="all-in-one"\} /m);
    const separate = await fetch(`${metricsBase}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(separate.status).toBe(200);
    expect(await separate.text()).toContain('http_request_duration_seconds_count');
    expect((await fetch(`${metricsBase}/ready`)).status).toBe(200);
  });

  it('on SIGTERM finishes the request in flight, refuses new work and exits 0', async () => {
    const body = JSON.stringify({ image_id: 'inflight', value: 1 });
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /v1/votes HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await delay(300);
    const exited = new Promise<number | null>((resolve) => service.child.once('exit', (code) => resolve(code)));
    service.child.kill('SIGTERM');
    await delay(500);
    // The listener is closed: a new connection is refused (or answered 503 while closing).
    const fresh = await fetch(`${base}/health`).then((response) => response.status, () => 'refused');
    expect([503, 'refused']).toContain(fresh);
    socket.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    expect(await exited).toBe(0);
  }, 30_000);
});

describe('a process without an API (projectors)', () => {
  it('has /health, /ready and /metrics on METRICS_PORT and stops on SIGTERM with status 0', async () => {
    const metricsPort = await freePort();
    const dataDir = tempDir();
    const projectors = startProcess('projectors', 'projectors/main.ts', { ...productionProcessEnv(dataDir), DATA_DIR: dataDir, METRICS_PORT: String(metricsPort) });
    try {
      const base = `http://127.0.0.1:${metricsPort}`;
      await waitForHttp(`${base}/health`, 60_000, projectors);
      expect((await fetch(`${base}/ready`)).status).toBe(200);
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(metricValue(text, 'projection_lag_events', { projection: 'accounts', process: 'projectors' })).toBe(0);
      const exited = new Promise<number | null>((resolve) => projectors.child.once('exit', (code) => resolve(code)));
      projectors.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await projectors.kill('SIGKILL');
    }
  }, 90_000);
});

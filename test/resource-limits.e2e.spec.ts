import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';
import { expectEnvelope } from './envelope.ts';
import { createHttpApp, type HttpApp } from '../http/app.ts';
import { BodyLimits, MultipartLimits, UploadLimits } from '../http/limits.ts';
import type { AuthDependencies } from '../http/auth.ts';

/** Resource limits: request rate per API key and plan, body sizes, multipart limits, slow clients. */

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateLimitPerMinute: 6, rateLimitPlans: { pro: 9 } });
});
afterAll(async () => {
  await service.dispose();
});

const fetchJson = async (url: string, init: RequestInit) => {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
};

describe('rate limits per API key', () => {
  it('counts down with RateLimit headers and answers 429 rate_limited with Retry-After, per key and per plan', async () => {
    const a = await service.createAccount();
    const b = await service.createAccount();
    const pro = await service.createAccount();
    expect((await service.request('PUT', `/v1/admin/accounts/${pro.account_id}/plan`, { key: ADMIN_KEY, body: { plan: 'pro' } })).status).toBe(200);

    for (let i = 1; i <= 6; i++) {
      const response = await service.request('GET', '/v1/votes', { key: a.api_key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('6');
      expect(response.headers.get('ratelimit-remaining')).toBe(String(6 - i));
      expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
    const refused = await service.request('GET', '/v1/votes', { key: a.api_key });
    const body = expectEnvelope(refused, 429, 'rate_limited');
    expect(body.limit).toBe(6);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Writes spend the same budget, and are refused before anything is appended.
    expectEnvelope(await service.request('POST', '/v1/votes', { key: a.api_key, body: { image_id: 'rl', value: 1 } }), 429, 'rate_limited');

    // Another key has its own budget; the pro plan has a larger one.
    expect((await service.request('GET', '/v1/votes', { key: b.api_key })).status).toBe(200);
    for (let i = 1; i <= 9; i++) expect((await service.request('GET', '/v1/votes', { key: pro.api_key })).status).toBe(200);
    expectEnvelope(await service.request('GET', '/v1/votes', { key: pro.api_key }), 429, 'rate_limited');

    // The 429 is readable by browsers (CORS exposes the headers).
    const exposed = await fetch(`${service.url}/v1/votes`, { headers: { 'x-api-key': b.api_key, origin: 'https://app.example' } });
    expect(exposed.headers.get('access-control-expose-headers')).toMatch(/Retry-After/i);
  });

  it('refuses unknown plan names and stores the plan as an event', async () => {
    const account = await service.createAccount();
    expectEnvelope(await service.request('PUT', `/v1/admin/accounts/${account.account_id}/plan`, { key: ADMIN_KEY, body: { plan: 'Gold Plan!' } }), 400, 'validation_failed');
    expectEnvelope(await service.request('PUT', '/v1/admin/accounts/nobody/plan', { key: ADMIN_KEY, body: { plan: 'pro' } }), 404, 'not_found');
  });
});

describe('body limits', () => {
  it('answers 413 payload_too_large past a route’s body limit, before anything is written', async () => {
    const { api_key } = await service.createAccount({ name: 'bodies' });
    const big = { image_id: 'big', value: 1, sub_id: 'x'.repeat(BodyLimits.smallJson) };
    expectEnvelope(await service.request('POST', '/v1/votes', { key: api_key, body: big }), 413, 'payload_too_large');
    expectEnvelope(await service.request('POST', '/v1/favourites', { key: api_key, body: { image_id: 'big', sub_id: 'x'.repeat(BodyLimits.smallJson) } }), 413, 'payload_too_large');
    const huge = { capabilities: { votes: true }, padding: 'x'.repeat(BodyLimits.json) };
    expectEnvelope(await service.request('PATCH', '/v1/accounts/capabilities', { key: api_key, body: huge }), 413, 'payload_too_large');
    expect((await service.request('GET', '/v1/votes', { key: api_key })).body).toEqual([]);
  });

  it('answers 415 to a multipart body on a JSON operation', async () => {
    const { api_key } = await service.createAccount({ name: 'multipart on json' });
    const form = new FormData();
    form.append('image_id', 'abc');
    form.append('value', '1');
    const response = await fetchJson(`${service.url}/v1/votes`, { method: 'POST', headers: { 'x-api-key': api_key }, body: form });
    expectEnvelope(response, 415, 'unsupported_media_type');
  });

  it('answers 431 headers_too_large (the envelope) to a URL over 16 KiB', async () => {
    const { api_key } = await service.createAccount({ name: 'long url' });
    const response = await service.request('GET', `/v1/votes?sub_id=${'x'.repeat(20_000)}`, { key: api_key });
    expectEnvelope(response, 431, 'headers_too_large');
  });

  it('documents 413 and 415 on every operation that takes a body, 431 on all', async () => {
    const document = (await service.request('GET', '/v1/openapi.json')).body;
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        const expected = operation.requestBody ? ['413', '415', '431'] : ['431'];
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(expected));
      }
    }
  });
});

/** A bare HTTP app (no service behind it) with test-only routes, for the shared limits in http/. */
const startBareApp = async (options: { requestTimeoutMs?: number; headersTimeoutMs?: number } = {}): Promise<{ app: HttpApp; url: string }> => {
  const app = await createHttpApp({ title: 'limits', logger: false, auth: {} as AuthDependencies, rateLimit: false, ...options });
  app.post('/v1/test-upload', { config: { auth: 'public', multipart: true } }, async (request) => {
    const photoOnly = (request.query as { photo?: string }).photo === '1';
    const files: { field: string; bytes: number }[] = [];
    for await (const part of request.parts(photoOnly ? { limits: { fileSize: 1024 } } : {})) {
      if (part.type === 'file') {
        let bytes = 0;
        for await (const chunk of part.file) bytes += (chunk as Buffer).length;
        files.push({ field: part.fieldname, bytes });
      }
    }
    return { files };
  });
  app.get('/v1/test-slow', { config: { auth: 'public' } }, async () => ({ ok: true }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
};

describe('multipart limits (shared by every upload route)', () => {
  let bare: { app: HttpApp; url: string };
  beforeAll(async () => {
    bare = await startBareApp();
  });
  afterAll(async () => {
    await bare.app.close();
  });

  const upload = (form: FormData, query = '') => fetchJson(`${bare.url}/v1/test-upload${query}`, { method: 'POST', body: form });

  it('has the spec’s limits', () => {
    expect(UploadLimits).toEqual({ photoBytes: 50 * 1024 * 1024, videoBytes: 200 * 1024 * 1024, filesPerRequest: 20 });
    expect(MultipartLimits.fileSize).toBe(UploadLimits.videoBytes);
  });

  it('takes up to 20 files and answers 413 for the 21st', async () => {
    const ok = new FormData();
    for (let i = 0; i < 20; i++) ok.append('images', new Blob([Buffer.alloc(10)]), `p${i}.jpg`);
    const accepted = await upload(ok);
    expect(accepted.status).toBe(200);
    expect(accepted.body.files).toHaveLength(20);

    const tooMany = new FormData();
    for (let i = 0; i < 21; i++) tooMany.append('images', new Blob([Buffer.alloc(10)]), `p${i}.jpg`);
    expectEnvelope(await upload(tooMany), 413, 'payload_too_large');
  });

  it('answers 413 for too many fields and for a file over the route’s size limit', async () => {
    const fields = new FormData();
    for (let i = 0; i <= MultipartLimits.fields; i++) fields.append(`f${i}`, 'x');
    expectEnvelope(await upload(fields), 413, 'payload_too_large');

    const large = new FormData();
    large.append('images', new Blob([Buffer.alloc(2048)]), 'big.jpg');
    expectEnvelope(await upload(large, '?photo=1'), 413, 'payload_too_large');
    expect((await upload(large)).status).toBe(200);
  });
});

describe('slow clients', () => {
  let bare: { app: HttpApp; url: string };
  beforeAll(async () => {
    bare = await startBareApp({ requestTimeoutMs: 2000, headersTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await bare.app.close();
  });

  /** Opens a socket, sends `head` and then one byte of `trickle` every 100 ms; resolves when the server closes it. */
  const slowClient = (head: string, trickle: string) =>
    new Promise<{ closedAfterMs: number; received: string }>((resolve) => {
      const { port } = new URL(bare.url);
      const started = Date.now();
      let received = '';
      const socket: Socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
      let i = 0;
      const timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(trickle[i++ % trickle.length]);
      }, 100);
      socket.on('data', (chunk) => (received += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ closedAfterMs: Date.now() - started, received });
      });
    });

  it('closes a connection whose headers never finish (slow-loris)', async () => {
    const result = await slowClient('GET /v1/test-slow HTTP/1.1\r\nHost: localhost\r\n', 'X-Slow: aaaaaaaa\r\n');
    expect(result.closedAfterMs).toBeLessThan(5000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.received).toContain('"code":"request_timeout"');
  });

  it('closes a connection whose body never finishes', async () => {
    const result = await slowClient(
      'POST /v1/test-upload HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
      'a',
    );
    expect(result.closedAfterMs).toBeLessThan(6000);
    expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(result.received.slice(result.received.indexOf('\r\n\r\n') + 4))).toMatchObject({
      statusCode: 408,
      error: 'Request Timeout',
      code: 'request_timeout',
    });
  });
});

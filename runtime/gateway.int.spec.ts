import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import { fastifyTrustProxy } from '../http/limits.ts';

/** Per-address limits behind the gateway: the APIs (TRUST_PROXY=1) see the client, never a spoofed address. */
describe('gateway forwarding the client address', () => {
  const upstream = Fastify(fastifyTrustProxy(1));
  const direct = Fastify(fastifyTrustProxy(undefined));
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  let gatewayUrl = '';
  let directUrl = '';
  beforeAll(async () => {
    for (const app of [upstream, direct]) app.get('/v1/ip', async (request) => ({ ip: request.ip }));
    const upstreamUrl = await upstream.listen({ port: 0, host: '127.0.0.1' });
    directUrl = await direct.listen({ port: 0, host: '127.0.0.1' });
    gateway = await createGateway({ commandApi: [upstreamUrl], queryApi: [upstreamUrl], logLevel: 'silent' });
    gatewayUrl = await gateway.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
    await direct.close();
  });

  it('the API behind the gateway sees the client address, not the gateway, and not a forged header', async () => {
    const seen = (await (await fetch(`${gatewayUrl}/v1/ip`, { headers: { 'x-forwarded-for': '203.0.113.66' } })).json()) as { ip: string };
    expect(seen.ip).toBe('127.0.0.1');
  });

  it('without TRUST_PROXY an API ignores X-Forwarded-For', async () => {
    const seen = (await (await fetch(`${directUrl}/v1/ip`, { headers: { 'x-forwarded-for': '203.0.113.66' } })).json()) as { ip: string };
    expect(seen.ip).toBe('127.0.0.1');
  });

  it('TRUST_PROXY=1 takes the address the nearest proxy appended', async () => {
    const seen = (await (await fetch(`${gatewayUrl}/v1/ip`, { headers: { 'x-forwarded-for': '203.0.113.66, 198.51.100.7' } })).json()) as { ip: string };
    expect(seen.ip).toBe('127.0.0.1');
    const upstreamSeen = (await (await fetch(`${upstream.listeningOrigin}/v1/ip`, { headers: { 'x-forwarded-for': '203.0.113.66, 198.51.100.7' } })).json()) as { ip: string };
    expect(upstreamSeen.ip).toBe('198.51.100.7');
  });
});

/** A replica killed or restarting behind the gateway: never a 500, and the others take its requests. */
describe('gateway with a replica that cannot answer', () => {
  const live = Fastify();
  const dying = Fastify();
  let gateway: Awaited<ReturnType<typeof createGateway>>;
  let gatewayUrl = '';
  let deadUrl = '';
  beforeAll(async () => {
    live.post('/v1/votes', async () => ({ ok: true }));
    live.get('/v1/votes', async () => ({ ok: true }));
    // Goes away mid-request, as a process killed while it handles one.
    dying.post('/v1/votes', async (request) => {
      request.raw.socket.destroy();
      return new Promise(() => undefined);
    });
    const liveUrl = await live.listen({ port: 0, host: '127.0.0.1' });
    // A port nothing listens on any more: connections are refused, as to a killed replica.
    const gone = Fastify();
    deadUrl = await gone.listen({ port: 0, host: '127.0.0.1' });
    await gone.close();
    gateway = await createGateway({ commandApi: [deadUrl, liveUrl], queryApi: [deadUrl, deadUrl], logLevel: 'silent' });
    gatewayUrl = await gateway.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await gateway.close();
    await live.close();
    await dying.close();
  });

  const post = () => fetch(`${gatewayUrl}/v1/votes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"image_id":"a","value":1}' });

  it('a refused connection is 503 upstream_unavailable with Retry-After, then the replica is skipped', async () => {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 10; i++) {
      const response = await post();
      statuses.push(response.status);
      if (response.status !== 200) refused = response;
      else await response.body?.cancel();
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([503]);
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(await refused?.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'upstream_unavailable', path: '/v1/votes' });
  });

  it('a replica\'s own 503 is passed on at once, not retried by the gateway', async () => {
    let calls = 0;
    const busy = Fastify();
    busy.get('/v1/votes', async (_request, reply) => {
      calls++;
      return reply.code(503).header('retry-after', '5').send({ statusCode: 503, code: 'store_unavailable' });
    });
    const busyUrl = await busy.listen({ port: 0, host: '127.0.0.1' });
    const only = await createGateway({ commandApi: [busyUrl], queryApi: [busyUrl], logLevel: 'silent' });
    try {
      const url = await only.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${url}/v1/votes`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(calls).toBe(1);
    } finally {
      await only.close();
      await busy.close();
    }
  });

  it('every replica down is 503 upstream_unavailable, never 500', async () => {
    const response = await fetch(`${gatewayUrl}/v1/votes`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'upstream_unavailable' });
  });

  it('a replica that goes away mid-request is 502 upstream_failed', async () => {
    const dyingUrl = await dying.listen({ port: 0, host: '127.0.0.1' });
    const only = await createGateway({ commandApi: [dyingUrl], queryApi: [dyingUrl], logLevel: 'silent' });
    try {
      const url = await only.listen({ port: 0, host: '127.0.0.1' });
      const response = await fetch(`${url}/v1/votes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(502);
      expect(await response.json()).toMatchObject({ statusCode: 502, error: 'Bad Gateway', code: 'upstream_failed' });
    } finally {
      await only.close();
    }
  });
});

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

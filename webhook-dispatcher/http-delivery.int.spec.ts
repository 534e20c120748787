import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, verifySignature, type Receiver } from '../test/webhook-receiver.ts';
import type { Resolve } from '../infrastructure/webhooks/target-policy.ts';
import { createHttpDelivery } from './http-delivery.ts';
import { signatureHeader } from './signature.ts';
import { chatServiceOf, formatChatMessage } from './chat-format.ts';

/** Every name resolves to loopback: lets chat-service host names reach a local receiver. */
const toLoopback: Resolve = async () => [{ address: '127.0.0.1', family: 4 }];

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('HTTP delivery (undici, real sockets)', () => {
  it('POSTs the body with headers; any 2xx is success; the signature verifies independently', async () => {
    const http = createHttpDelivery({ allowPrivateTargets: true, timeoutMs: 2000 });
    try {
      const before = receiver.received.length;
      receiver.respond = () => 204;
      const body = JSON.stringify({ id: 1, _metadata: { event_type: 'vote.created' } });
      const secret = 'whsec_test';
      const result = await http.post(receiver.url, body, { 'content-type': 'application/json', 'x-webhook-signature': signatureHeader(secret, body, Math.floor(Date.now() / 1000)) });
      expect(result).toMatchObject({ success: true, statusCode: 204, error: null });
      const got = receiver.received[before];
      expect(got.body).toBe(body);
      expect(verifySignature(got.headers['x-webhook-signature'] as string, got.body, secret)).toBe(true);
      expect(verifySignature(got.headers['x-webhook-signature'] as string, got.body, 'whsec_other')).toBe(false);
      expect(verifySignature(got.headers['x-webhook-signature'] as string, `${got.body} `, secret)).toBe(false);
      // the 300 s tolerance: the same header is refused when checked 301 s later
      expect(verifySignature(got.headers['x-webhook-signature'] as string, got.body, secret, Math.floor(Date.now() / 1000) + 301)).toBe(false);
    } finally {
      await http.close();
    }
  });

  it('a 3xx is a failure and is not followed; a 500 is a failure', async () => {
    const http = createHttpDelivery({ allowPrivateTargets: true, timeoutMs: 2000 });
    try {
      receiver.respond = () => 302;
      const before = receiver.received.length;
      expect(await http.post(receiver.url, '{}', {})).toMatchObject({ success: false, statusCode: 302, error: 'redirect (302) not followed' });
      receiver.respond = () => 500;
      expect(await http.post(receiver.url, '{}', {})).toMatchObject({ success: false, statusCode: 500 });
      expect(receiver.received.length - before).toBe(2);
    } finally {
      await http.close();
    }
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const http = createHttpDelivery({ allowPrivateTargets: true, timeoutMs: 400 });
    try {
      receiver.respond = () => 'hang';
      const result = await http.post(receiver.url, '{}', {});
      expect(result).toMatchObject({ success: false, statusCode: null, error: 'no answer within 400 ms' });
      expect(result.durationMs).toBeGreaterThanOrEqual(350);
      expect(result.durationMs).toBeLessThan(3000);
    } finally {
      await http.close();
    }
  });

  it('reads at most 64 KiB of an answer: a long (here endless) answer ends the exchange there, and the next one goes through', async () => {
    const endless = createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(16 * 1024, 120);
      const timer = setInterval(() => response.write(chunk), 5);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const http = createHttpDelivery({ allowPrivateTargets: true, timeoutMs: 3000 });
    try {
      const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/hook`;
      const result = await http.post(url, '{}', {});
      expect(result).toMatchObject({ success: true, statusCode: 200, error: null });
      expect(result.durationMs).toBeLessThan(2000);
      expect((await http.post(url, '{}', {})).success).toBe(true);
    } finally {
      await http.close();
      endless.closeAllConnections();
      await new Promise((resolve) => endless.close(resolve));
    }
  });

  it('refuses loopback at connect time when private targets are not allowed (literal IP and resolved name)', async () => {
    const http = createHttpDelivery({ allowPrivateTargets: false, timeoutMs: 2000, resolve: toLoopback });
    try {
      receiver.respond = () => 200;
      const before = receiver.received.length;
      const literal = await http.post(receiver.url, '{}', {});
      expect(literal).toMatchObject({ success: false, statusCode: null });
      expect(literal.error).toMatch(/not allowed \(loopback\)/);
      // a name that passed registration but now resolves to 127.0.0.1 (DNS rebinding)
      const rebound = await http.post(`http://rebind.example:${receiver.port}/hook`, '{}', {});
      expect(rebound.error).toMatch(/rebind\.example \(127\.0\.0\.1\) is not allowed/);
      expect(receiver.received.length).toBe(before);
    } finally {
      await http.close();
    }
  });

  it('delivers a formatted message to a chat-service URL (resolver injected to reach a local receiver)', async () => {
    const http = createHttpDelivery({ allowPrivateTargets: true, timeoutMs: 2000, resolve: toLoopback });
    try {
      receiver.respond = () => 200;
      const before = receiver.received.length;
      const url = `http://hooks.slack.com:${receiver.port}/services/T1/B1/x`;
      const service = chatServiceOf(url);
      expect(service).toBe('slack');
      const payload = { id: 7, image_id: 'img', _metadata: { event_type: 'vote.created', event_id: 'e1', timestamp: 't' } };
      const result = await http.post(url, JSON.stringify(formatChatMessage(service!, 'vote.created', payload)), { 'content-type': 'application/json' });
      expect(result.success).toBe(true);
      const got = receiver.received[before];
      expect(got.path).toBe('/services/T1/B1/x');
      expect(got.headers.host).toBe(`hooks.slack.com:${receiver.port}`);
      expect(JSON.parse(got.body).text).toContain('vote.created: a vote was recorded');
    } finally {
      await http.close();
    }
  });
});

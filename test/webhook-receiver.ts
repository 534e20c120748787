import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest = { at: number; method: string; path: string; headers: IncomingHttpHeaders; body: string };

/** What the receiver does with request n (0-based): answer a status, or never answer. */
export type Responder = (index: number, request: ReceivedRequest) => number | 'hang';

export type Receiver = {
  url: string;
  port: number;
  received: ReceivedRequest[];
  respond: Responder;
  /** Resolves once `count` requests arrived (rejects after timeoutMs). */
  waitFor: (count: number, timeoutMs?: number) => Promise<ReceivedRequest[]>;
  close: () => Promise<void>;
};

/** A real HTTP receiver on 127.0.0.1 that records every request with its arrival time. */
export const startReceiver = async (respond: Responder = () => 200): Promise<Receiver> => {
  const received: ReceivedRequest[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const receiver = { respond } as Receiver;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = { at: performance.now(), method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const index = received.length;
      received.push(request);
      const answer = receiver.respond(index, request);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer, answer >= 300 && answer < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    waitFor: async (count: number, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received.slice(0, count);
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return receiver;
};

/**
 * An independent check of X-Webhook-Signature, as a customer would write it: parse t and v1,
 * refuse a timestamp more than 300 s away, HMAC-SHA256 over "<t>." + raw body, constant-time compare.
 */
export const verifySignature = (header: string | undefined, body: string, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean => {
  if (!header) return false;
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

export const waitUntil = async <T>(probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

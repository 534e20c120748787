import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { mongoClient } from './mongo-client.ts';
import { countReturns, LOST_GRACE_MS, mongoUnreachable } from './mongo-reachability.ts';

/**
 * The real driver against the real Mongo-wire server (MONGO_URL), through a loopback TCP relay the
 * test can cut and restore: the server "goes away" as when it is killed (connections reset, the
 * port refuses) and comes back on the same port.
 */
const url = process.env.MONGO_URL;

const relay = async (target: URL) => {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = createConnection({ host: target.hostname, port: Number(target.port || 27017) });
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });
  const cut = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server!.close(() => resolve());
    });
  await open();
  return { port: () => port, cut, restore: open };
};

const until = async (condition: () => boolean, timeoutMs: number): Promise<number> => {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms`);
    await delay(50);
  }
  return Date.now() - started;
};

describe.skipIf(!url)('mongo reachability with the real driver (MONGO_URL through a relay)', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  });

  it('is lost soon after the server goes away (an operation or a heartbeat sees it) and back within a heartbeat of its return', async () => {
    const target = new URL(url as string);
    const proxy = await relay(target);
    const client = mongoClient(`mongodb://127.0.0.1:${proxy.port()}/reachability_test`);
    const returns = countReturns(client);
    cleanup.push(() => client.close());
    await client.connect();
    await client.db().collection('probe').findOne({});
    expect(mongoUnreachable()).toBe(false);

    await proxy.cut();
    // An operation on a connection the server closed: a network error, the server marked Unknown
    // (the operation itself goes on waiting for a server to select, up to its 10 s).
    const failed = client.db().collection('probe').findOne({}).catch(() => null);
    const lostAfter = await until(() => mongoUnreachable(), 5_000);
    expect(lostAfter).toBeLessThanOrEqual(LOST_GRACE_MS + 2_500);

    expect(returns.count).toBe(0);
    await proxy.restore();
    const backAfter = await until(() => !mongoUnreachable(), 6_000);
    expect(backAfter).toBeLessThan(6_000);
    // Back after being lost: a return (the read store reports it as a possible rollback).
    expect(returns.count).toBe(1);
    await failed;
    expect(await client.db().collection('probe').countDocuments({})).toBeGreaterThanOrEqual(0);
  }, 30_000);
});

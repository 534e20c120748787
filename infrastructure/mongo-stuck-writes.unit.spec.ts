import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { MongoNetworkError } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { releaseStuckWrites } from './mongo-stuck-writes.ts';

/** A connected loopback socket pair: the client end and the server's end. */
const socketPair = async (): Promise<{ client: Socket; peer: Socket; server: Server }> => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const client = connect((server.address() as { port: number }).port, '127.0.0.1');
  client.on('error', () => undefined);
  await once(client, 'connect');
  const [peer] = (await accepted) as [Socket];
  peer.on('error', () => undefined);
  return { client, peer, server };
};

/** What the driver does: write, and when the write is not taken at once, wait for 'drain' (or an error). */
const driverWrite = (socket: Socket): Promise<string> =>
  socket.write(Buffer.alloc(16))
    ? Promise.resolve('written')
    : once(socket, 'drain').then(
        () => 'drained',
        // The driver passes the error on as it is: a network error is what makes it a 503, not a 500.
        (error: Error) => `failed (${error instanceof MongoNetworkError ? 'network error' : 'other error'}): ${error.message}`,
      );

const settledWithin = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, delay(ms).then(() => 'still waiting' as const)]);

describe('releaseStuckWrites', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  it('a write on a destroyed socket waits for ever; the sweep fails it with an error', async () => {
    const { client, peer, server } = await socketPair();
    servers.push(server);
    client.destroy();
    const write = driverWrite(client);
    // The defect the sweep answers: no 'drain', no 'error', ever.
    expect(await settledWithin(write, 200)).toBe('still waiting');

    expect(releaseStuckWrites([client])).toBe(1);
    expect(await settledWithin(write, 1_000)).toBe('failed (network error): write on a connection that was already closed');
    peer.destroy();
  });

  it('leaves alone a live socket that waits for drain, and a destroyed one nobody waits on', async () => {
    const { client: live, peer, server } = await socketPair();
    servers.push(server);
    const drainWaiter = once(live, 'drain').then(() => 'drained');
    const { client: closed, server: other } = await socketPair();
    servers.push(other);
    closed.destroy();
    const errors: Error[] = [];
    closed.on('error', (error) => errors.push(error));

    expect(releaseStuckWrites([live, closed])).toBe(0);
    expect(errors).toEqual([]);
    live.emit('drain');
    expect(await drainWaiter).toBe('drained');
    peer.destroy();
    live.destroy();
  });
});

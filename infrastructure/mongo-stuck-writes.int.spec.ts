import { setTimeout as delay } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { afterAll, describe, expect, it } from 'vitest';
import { mongoClient, mongoClientOptions } from './mongo-client.ts';

/**
 * The real driver against the real Mongo-wire server (MONGO_URL). The race the sweep answers — a
 * socket destroyed while its 'close' event has not yet told the driver's connection — lasts a few
 * microseconds when a server goes away; the test holds it open: it takes the 'close' listeners off
 * the monitor's socket, then destroys it. The monitor's next heartbeat writes to that socket.
 */
const url = process.env.MONGO_URL;

interface MonitorInternals {
  connection: { socket: { destroy(): void; removeAllListeners(event: string): void } } | null;
}

const monitorOf = (client: MongoClient): MonitorInternals => {
  const servers = (client as unknown as { topology: { s: { servers: Map<string, { monitor: MonitorInternals }> } } }).topology.s.servers;
  return [...servers.values()][0].monitor;
};

/** Heartbeats that ended (succeeded or failed) from now on. */
const heartbeatsEnded = (client: MongoClient) => {
  const ended: string[] = [];
  client.on('serverHeartbeatSucceeded', () => ended.push('succeeded'));
  client.on('serverHeartbeatFailed', () => ended.push('failed'));
  return ended;
};

/** Waits for the monitor to hold a connection, then destroys its socket as the race would leave it. */
const destroyMonitorSocketUnseen = async (client: MongoClient): Promise<void> => {
  const monitor = monitorOf(client);
  for (let i = 0; i < 100 && !monitor.connection; i++) await delay(50);
  const socket = monitor.connection!.socket;
  socket.removeAllListeners('close');
  socket.destroy();
};

describe.skipIf(!url)('commands stuck writing to a closed connection (real driver, MONGO_URL)', () => {
  const clients: MongoClient[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close(true).catch(() => undefined);
  });

  it("the driver alone: the monitor's heartbeat on a socket destroyed unseen never ends", async () => {
    const client = new MongoClient(url as string, mongoClientOptions(url as string));
    clients.push(client);
    await client.connect();
    await destroyMonitorSocketUnseen(client);
    const ended = heartbeatsEnded(client);
    // Heartbeats run every 2 s; three would have ended by now had the monitor not been stuck. If a
    // driver upgrade makes this pass, the sweep (mongo-stuck-writes.ts) is no longer needed.
    await delay(6_000);
    expect(ended).toEqual([]);
  }, 20_000);

  it('with the sweep (mongoClient): that heartbeat fails within a sweep and the next one reaches the server again', async () => {
    const client = mongoClient(url as string);
    clients.push(client);
    await client.connect();
    await destroyMonitorSocketUnseen(client);
    const ended = heartbeatsEnded(client);
    const started = Date.now();
    while (!ended.includes('succeeded') && Date.now() - started < 8_000) await delay(50);
    expect(ended.slice(0, 2)).toEqual(['failed', 'succeeded']);
    expect(await client.db().collection('stuck_writes_probe').countDocuments({})).toBeGreaterThanOrEqual(0);
  }, 20_000);
});

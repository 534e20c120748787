import { MongoNetworkError, type MongoClient } from 'mongodb';

/** How often a client's connections are looked over for a write that can never finish. */
export const STUCK_WRITE_SWEEP_MS = 1_000;

/** What the sweep needs of a socket: whether it is destroyed, who waits on it, and a way to tell them. */
export interface SweptSocket {
  readonly destroyed: boolean;
  listenerCount(event: string): number;
  emit(event: string, ...args: unknown[]): boolean;
}

/**
 * Fails every write that waits for 'drain' on a socket already destroyed, and returns how many
 * sockets it released.
 *
 * Why: the MongoDB driver (6.x, and 7.x the same) writes a command and, when `socket.write`
 * returns false, awaits the socket's 'drain' event (or an 'error'). A write on a socket that is
 * already destroyed returns false and emits neither, so that command waits for ever. The window is
 * real: when the server goes away, a socket is destroyed some time before its 'close' event tells
 * the driver's connection it is closed, and a command sent in between never ends. When that command
 * is the server monitor's heartbeat, the monitor never checks again and the client never sees its
 * server come back: the fault suite caught a projector process failing server selection for
 * 15 minutes after the Mongo-wire server it used had been restarted, while every other process
 * had recovered within seconds. A destroyed socket never drains, so any 'drain' listener on one
 * waits for nothing; the error it gets is the one the write should have raised.
 */
export const releaseStuckWrites = (sockets: Iterable<SweptSocket>): number => {
  let released = 0;
  for (const socket of sockets) {
    if (!socket.destroyed || socket.listenerCount('drain') === 0) continue;
    // A network error, as the driver's own would be: the command fails as any on a lost server
    // (its server marked unknown, a request answered 503 store_unavailable), never as a 500.
    socket.emit('error', new MongoNetworkError('write on a connection that was already closed'));
    released += 1;
  }
  return released;
};

/** A field of a driver object, read without trusting its shape (undefined when absent). */
const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);

const isSocket = (value: unknown): value is SweptSocket =>
  typeof value === 'object' && value !== null && typeof (value as SweptSocket).listenerCount === 'function' && typeof (value as SweptSocket).emit === 'function';

const isIterable = (value: unknown): value is Iterable<unknown> => typeof value === 'object' && value !== null && Symbol.iterator in value;

/**
 * The sockets of a client that can have a command in flight: each server's monitor connection
 * (and round-trip pinger) and its pool's checked-out connections. These are driver internals
 * (`topology.s.servers`, `monitor.connection`, `pool.checkedOutConnections`, `connection.socket`),
 * read defensively: a driver that renames them yields no sockets, and the int test
 * (mongo-stuck-writes.int.spec.ts) fails, rather than anything throwing here.
 */
export function* socketsOf(client: MongoClient): Generator<SweptSocket> {
  const servers = field(field(field(client, 'topology'), 's'), 'servers');
  if (!(servers instanceof Map)) return;
  for (const server of servers.values()) {
    const monitor = field(server, 'monitor');
    const checkedOut = field(field(server, 'pool'), 'checkedOutConnections');
    const connections = [field(monitor, 'connection'), field(field(monitor, 'rttPinger'), 'connection'), ...(isIterable(checkedOut) ? checkedOut : [])];
    for (const connection of connections) {
      const socket = field(connection, 'socket');
      if (isSocket(socket)) yield socket;
    }
  }
}

/**
 * Looks over a client's connections every second while its topology is open (an unref'd timer:
 * it never holds a process up) and reports each release.
 */
export const watchStuckWrites = (client: MongoClient, onRelease: (released: number) => void): void => {
  let timer: NodeJS.Timeout | null = null;
  const start = () => {
    if (timer) return;
    timer = setInterval(() => {
      const released = releaseStuckWrites(socketsOf(client));
      if (released > 0) onRelease(released);
    }, STUCK_WRITE_SWEEP_MS);
    timer.unref();
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  client.on('topologyOpening', start);
  client.on('topologyClosed', stop);
};

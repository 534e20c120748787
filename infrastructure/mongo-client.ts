import { MongoClient, type MongoClientOptions } from 'mongodb';
import { countCommand, monitorsMongoCommands } from './mongo-commands.ts';
import { createLogger } from './logger.ts';
import { watchReachability } from './mongo-reachability.ts';
import { watchStuckWrites } from './mongo-stuck-writes.ts';

/** A server that cannot be selected fails a call within this time. */
export const SERVER_SELECTION_TIMEOUT_MS = 10_000;
/** A new connection (TCP and handshake) must be up within this time. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** An operation whose socket stays silent this long fails instead of waiting for ever. */
export const SOCKET_TIMEOUT_MS = 60_000;
/** How often the driver checks a server: a lost one is seen back within this time of its return. */
export const HEARTBEAT_FREQUENCY_MS = 2_000;

const setInUrl = (url: string, option: string): boolean => new RegExp(`[?&]${option}=`, 'i').test(url);

/**
 * The client options every MongoDB adapter uses: selection fails within 10 s, a new connection's
 * handshake within 10 s, and a silent socket within 60 s — a Mongo-wire server that stops
 * answering (FerretDB v1.24 on SQLite can, see docs/performance.md, Production adapters) otherwise holds a projection, a bus
 * handler or a request for ever. (The connect bound matters too: a stopped server's kernel still
 * accepts TCP connections, so the driver's retry of a timed-out read would wait out the default
 * 30 s handshake.) Servers are checked every 2 s, so a server that comes back is seen within 2 s
 * (requests are turned away while it is lost: mongo-reachability.ts). An option given in MONGO_URL
 * (`?socketTimeoutMS=…`) is left to the URL.
 */
export const mongoClientOptions = (url: string): MongoClientOptions => ({
  ...(setInUrl(url, 'serverSelectionTimeoutMS') ? {} : { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS }),
  ...(setInUrl(url, 'connectTimeoutMS') ? {} : { connectTimeoutMS: CONNECT_TIMEOUT_MS }),
  ...(setInUrl(url, 'socketTimeoutMS') ? {} : { socketTimeoutMS: SOCKET_TIMEOUT_MS }),
  ...(setInUrl(url, 'heartbeatFrequencyMS') ? {} : { heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS }),
});

let stuckWritesLog: ReturnType<typeof createLogger> | undefined;
const logReleasedWrites = (released: number): void => {
  stuckWritesLog ??= createLogger('mongodb');
  stuckWritesLog.warn({ released }, 'failed commands stuck writing to closed connections (driver defect: mongo-stuck-writes.ts)');
};

/**
 * A client with the options above, whose reachability requests consult (mongo-reachability.ts),
 * and whose commands stuck writing to a closed connection are failed (mongo-stuck-writes.ts).
 */
export const mongoClient = (url: string): MongoClient => {
  const monitored = monitorsMongoCommands();
  const client = new MongoClient(url, { ...mongoClientOptions(url), ...(monitored ? { monitorCommands: true } : {}) });
  if (monitored) client.on('commandStarted', (event) => countCommand(event.commandName, event.command as Record<string, unknown>));
  watchReachability(client);
  watchStuckWrites(client, logReleasedWrites);
  return client;
};

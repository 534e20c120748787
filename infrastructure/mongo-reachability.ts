import type { MongoClient, TopologyDescriptionChangedEvent } from 'mongodb';

/**
 * How long every server of a client must have been lost before requests are turned away: one
 * broken connection marks its server Unknown until the driver's immediate re-check (within its
 * 500 ms minimum), and a request arriving then is better served by waiting for that check.
 */
export const LOST_GRACE_MS = 1_000;

/** Since when each client of this process has had no server it can reach (absent: it has one). */
const lostSince = new Map<MongoClient, number>();

const reachable = (event: TopologyDescriptionChangedEvent): boolean =>
  [...event.newDescription.servers.values()].some((server) => server.type !== 'Unknown');

/**
 * Follows a client's view of its servers from the driver's own monitoring (SDAM events): lost when
 * every server is Unknown — a refused connection, a socket closed under an operation, a failed
 * heartbeat — and back at the first heartbeat that succeeds. Only a client that was reachable can
 * be lost: a client still connecting is not counted.
 */
export const watchReachability = (client: MongoClient): void => {
  let seen = false;
  client.on('topologyDescriptionChanged', (event) => {
    if (reachable(event)) {
      seen = true;
      lostSince.delete(client);
    } else if (seen && !lostSince.has(client)) {
      lostSince.set(client, Date.now());
    }
  });
  client.on('topologyClosed', () => lostSince.delete(client));
};

/**
 * True when a MongoDB client of this process has been out of reach for longer than the grace:
 * requests that would need it are answered 503 at once instead of each waiting out server selection
 * (10 s per operation, and a request can make several in a row).
 */
export const mongoUnreachable = (now = Date.now()): boolean => {
  for (const since of lostSince.values()) if (now - since > LOST_GRACE_MS) return true;
  return false;
};

/**
 * Counts the times a client got a server back after it had lost every one. A MongoDB server that
 * was out of reach can come back without writes it had acknowledged: killed before they reached its
 * disk (a standalone mongod's unjournaled writes of the last ≈ 100 ms, mongo-java-server's H2 store
 * the last second). Writers that must not build on such writes (the projection runner's
 * checkpoints) read back what the server holds after each return.
 */
export const countReturns = (client: MongoClient): { readonly count: number } => {
  let seen = false;
  let lost = false;
  let count = 0;
  client.on('topologyDescriptionChanged', (event) => {
    if (reachable(event)) {
      if (lost) count += 1;
      seen = true;
      lost = false;
    } else if (seen) {
      lost = true;
    }
  });
  return {
    get count() {
      return count;
    },
  };
};

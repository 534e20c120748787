import type { FastifyInstance } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { errorChain } from '../infrastructure/error-chain.ts';
import { mongoUnreachable } from '../infrastructure/mongo-reachability.ts';

/** How long a client is asked to wait when a database cannot be reached. */
export const STORE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** How long a client is asked to wait when the disk under DATA_DIR is full. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;

/**
 * The MongoDB driver's errors for a server it cannot reach or lost on the way (by name: the driver
 * is not loaded where MONGO_URL is unset). Selection fails within MONGO_URL's 10 s bound.
 */
const MONGO_UNREACHABLE = new Set([
  'MongoServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/** SQLite (better-sqlite3) and the file system when the disk under DATA_DIR has no room left. */
const DISK_FULL = new Set(['SQLITE_FULL', 'ENOSPC', 'EDQUOT']);
/** SQLite when another process holds the file longer than the busy timeout. */
const FILE_BUSY = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_TIMEOUT']);

/**
 * The error and what it wraps: its `cause`, or the driver's `errorResponse` (a MongoBulkWriteError
 * of a bulk write whose server could not be reached carries the MongoServerSelectionError there).
 */
const causes = (error: unknown) => errorChain(error, { via: ['cause', 'errorResponse'] });

/**
 * An error of the storage underneath (a database that cannot be reached, a full disk) as the 503
 * a client can act on — `store_unavailable` or `storage_full` with Retry-After — instead of a 500.
 * Undefined for anything else. A write refused this way was not applied: the append is one
 * transaction, so nothing of it is acknowledged or half-stored.
 */
export const unavailableError = (error: unknown): DomainError | undefined => {
  for (const cause of causes(error)) {
    const code = typeof cause.code === 'string' ? cause.code : '';
    if (DISK_FULL.has(code) || (code.startsWith('SQLITE_IOERR') && /no space|disk is full|database or disk is full/i.test(String(cause.message)))) {
      return new DomainError('storage_full', 'the disk under the service\'s data directory is full; nothing was written, try again later', {
        retryAfterSeconds: STORAGE_FULL_RETRY_AFTER_SECONDS,
      });
    }
    if (FILE_BUSY.has(code)) {
      return new DomainError('store_unavailable', 'the event store is busy; nothing was written, try again', { retryAfterSeconds: 1 });
    }
    if (typeof cause.name === 'string' && MONGO_UNREACHABLE.has(cause.name)) return databaseUnreachable();
  }
  return undefined;
};

const databaseUnreachable = (): DomainError =>
  new DomainError('store_unavailable', 'the database cannot be reached; try again shortly', { retryAfterSeconds: STORE_UNAVAILABLE_RETRY_AFTER_SECONDS });

/** What answers without the database: the process's own health, readiness (which reports the store itself), metrics and API description. */
const ANSWERS_WITHOUT_STORE = new Set(['/health', '/ready', '/metrics', '/v1/openapi.json']);

/**
 * While the process's MongoDB has been lost (infrastructure/mongo-reachability.ts), a request that
 * needs it is answered 503 store_unavailable with Retry-After at once, before authentication: one
 * request can make several database calls in a row, and each would otherwise wait out server
 * selection (10 s) before failing. Nothing is written. With no MongoDB (the embedded adapters) this
 * never refuses.
 */
export const registerStoreReachability = (app: FastifyInstance): void => {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route === undefined || ANSWERS_WITHOUT_STORE.has(route) || route.startsWith('/v1/docs') || !mongoUnreachable()) return done();
    done(databaseUnreachable());
  });
};

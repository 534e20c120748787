import type { FastifyInstance, FastifyRequest } from 'fastify';
import { onlyLeasedKinds, type WriteKind } from '../contracts/write-kinds.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { AccountPositions, WritePositions } from '../infrastructure/consistency/write-positions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The kinds of the caller's own writes this read's answer can depend on (contracts/write-kinds.ts):
     * read-your-writes waits for the caller's last write of these kinds only — none at all for an
     * empty list (reference data, which no account's request writes). Unset: any write.
     */
    dependsOn?: readonly WriteKind[];
  }
  interface FastifyRequest {
    /**
     * The position the read-your-writes wait reached for this request (the caller's last write the
     * route depends on, once the projections passed it); null when there was nothing to wait for
     * or the wait timed out. Caches shared over callers serve this request only what is that new.
     */
    readPosition: bigint | null;
  }
}

export type ReadYourWritesOptions = {
  readStore: ReadStore;
  writePositions: WritePositions;
  projections: readonly string[];
  timeoutMs: number;
};

/**
 * The account's positions for a read that depends on writes of `kinds` (undefined: any): the ones
 * authentication read for this request when it read the same store — if they are leased, only for
 * a read of leased kinds alone (write-positions.ts) — else a lookup of its own, leased or fresh.
 */
const positionsOf = async (request: FastifyRequest, accountId: string, writePositions: WritePositions, kinds: readonly WriteKind[] | undefined): Promise<AccountPositions> => {
  const leasedEnough = onlyLeasedKinds(kinds);
  const known = request.writePositions;
  if (known && known.from === writePositions && (writePositions.leaseMs === 0 || leasedEnough)) return known;
  return leasedEnough ? writePositions.leasedPositions(accountId) : writePositions.positions(accountId);
};

/** The position this read must see: the last write of the kinds it depends on (null: nothing to wait for). */
export const dependedOnWrite = (positions: AccountPositions, dependsOn: readonly WriteKind[] | undefined): bigint | null => {
  if (dependsOn === undefined) return positions.lastWrite;
  let highest: bigint | null = null;
  for (const kind of dependsOn) {
    const position = positions.byKind?.[kind];
    if (position !== undefined && (highest === null || position > highest)) highest = position;
  }
  return highest;
};

/**
 * The caller's last write of `kinds` (null: none recorded), with the lookup rules of `positionsOf`:
 * for a write's answer that embeds what the caller wrote before (a vote's answer embeds the
 * caller's image uploaded just before).
 */
export const ownLastWrite = async (request: FastifyRequest, accountId: string, writePositions: WritePositions, kinds: readonly WriteKind[]): Promise<bigint | null> =>
  dependedOnWrite(await positionsOf(request, accountId, writePositions, kinds), kinds);

/**
 * Read-your-writes for every GET in the plugin it is registered in: before answering an account,
 * wait (bounded) until every read-model projection has passed that account's last write — of the
 * kinds the route depends on when it says (`dependsOn`), so a breed list does not wait for the
 * projection of the caller's vote. If the wait times out the answer is served anyway and says so
 * in `X-Consistency: stale`.
 */
export const registerReadYourWrites = (app: FastifyInstance, options: ReadYourWritesOptions): void => {
  if (!app.hasRequestDecorator('readPosition')) app.decorateRequest('readPosition', null);
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !request.account) return;
    const dependsOn = request.routeOptions.config.dependsOn;
    if (dependsOn?.length === 0) return;
    const position = dependedOnWrite(await positionsOf(request, request.account.id, options.writePositions, dependsOn), dependsOn);
    if (position === null) return;
    const caughtUp = await options.readStore.waitForCheckpoints(options.projections, position, options.timeoutMs);
    if (caughtUp) request.readPosition = position;
    else reply.header('X-Consistency', 'stale');
  });
};

/**
 * Declares for every route registered after it in this (encapsulated) plugin the kinds of the
 * caller's writes its answers depend on (see `dependsOn`): for plugins whose every route reads
 * the same read models, so a route added later cannot be forgotten.
 */
export const readsDependOn = (instance: FastifyInstance, kinds: readonly WriteKind[]): void => {
  instance.addHook('onRoute', (route) => {
    route.config = { ...route.config, dependsOn: kinds };
  });
};

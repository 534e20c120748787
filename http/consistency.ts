import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { WritePositions } from '../infrastructure/consistency/write-positions.ts';

export type ReadYourWritesOptions = {
  readStore: ReadStore;
  writePositions: WritePositions;
  projections: readonly string[];
  timeoutMs: number;
};

/**
 * The account's last write: the one authentication read for this request when it read the same
 * store (one lookup per request), else a lookup of its own.
 */
const lastWriteOf = async (request: FastifyRequest, accountId: string, writePositions: WritePositions): Promise<bigint | null> => {
  const known = request.writePositions;
  if (known && known.from === writePositions) return known.lastWrite;
  return writePositions.lastWrite(accountId);
};

/**
 * Read-your-writes for every GET in the plugin it is registered in: before answering an account,
 * wait (bounded) until every read-model projection has passed that account's last write. If the
 * wait times out the answer is served anyway and says so in `X-Consistency: stale`.
 */
export const registerReadYourWrites = (app: FastifyInstance, options: ReadYourWritesOptions): void => {
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !request.account) return;
    const position = await lastWriteOf(request, request.account.id, options.writePositions);
    if (position === null) return;
    const caughtUp = await options.readStore.waitForCheckpoints(options.projections, position, options.timeoutMs);
    if (!caughtUp) reply.header('X-Consistency', 'stale');
  });
};

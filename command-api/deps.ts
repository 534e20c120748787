import type { FastifyRequest } from 'fastify';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { CommandContext } from '../infrastructure/event-store/command-handler.ts';

export type CommandApiDeps = {
  eventStore: EventStore;
  writePositions: WritePositions;
};

/** The metadata context of a request: account, request id, and the key (or admin) acting. */
export const contextOf = (request: FastifyRequest): CommandContext => ({
  accountId: request.account?.id ?? null,
  requestId: request.id,
  actor: request.isAdmin ? 'admin' : request.account ? `key:${request.account.keyId}` : null,
});

/** Remembers the account's last write so its next read waits for the projections. */
export const recordWrite = async (deps: CommandApiDeps, accountId: string | null, position: bigint | null): Promise<void> => {
  if (accountId && position !== null) await deps.writePositions.record(accountId, position);
};

import type { CommandContext } from '../infrastructure/event-store/command-handler.ts';

/** What the dispatcher's appends record as their cause: the account, the system actor, the event that caused them. */
export const dispatcherContext = (accountId: string, causationId: string | null = null): CommandContext => ({
  accountId,
  requestId: null,
  causationId,
  actor: 'system:webhook-dispatcher',
});

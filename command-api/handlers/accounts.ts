import { accountDecider, type AccountCommand } from '../../domain/accounts/decide.ts';
import { accountStream } from '../../domain/accounts/account.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { newApiKey, randomId } from '../../infrastructure/ids.ts';

/** Opens an account with a first API key. The key is returned here once and never stored. */
export const openAccount = async (
  store: EventStore,
  input: { name: string; email?: string | null; features?: string[] },
  context: CommandContext,
): Promise<{ account_id: string; api_key: string; key_id: string; position: bigint | null }> => {
  const accountId = randomId(9);
  const { key, ...stored } = newApiKey();
  const result = await handleCommand(
    store,
    accountStream(accountId),
    accountDecider,
    {
      type: 'OpenAccount',
      account_id: accountId,
      name: input.name,
      email: input.email ?? null,
      ...(input.features === undefined ? {} : { features: input.features }),
      key: stored,
      now: new Date().toISOString(),
    },
    { ...context, accountId },
  );
  return { account_id: accountId, api_key: key, key_id: stored.key_id, position: result.position };
};

/** Issues one more API key to an open account (e.g. to replace a leaked one). Shown here once. */
export const issueApiKey = async (
  store: EventStore,
  accountId: string,
  context: CommandContext,
): Promise<{ api_key: string; key_id: string; position: bigint | null }> => {
  const { key, ...stored } = newApiKey();
  const result = await changeAccount(store, accountId, { type: 'IssueApiKey', key: stored, now: new Date().toISOString() }, context);
  return { api_key: key, key_id: stored.key_id, position: result.position };
};

/** Revokes one API key of an account: it answers 403 invalid_api_key from the next request on. */
export const revokeApiKey = (store: EventStore, accountId: string, keyId: string, context: CommandContext) =>
  changeAccount(store, accountId, { type: 'RevokeApiKey', key_id: keyId, now: new Date().toISOString() }, context);

/** Runs any other account command against an existing account stream. */
export const changeAccount = (
  store: EventStore,
  accountId: string,
  command: Exclude<AccountCommand, { type: 'OpenAccount' }>,
  context: CommandContext,
) => handleCommand(store, accountStream(accountId), accountDecider, command, { ...context, accountId });

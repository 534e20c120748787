import { parseArgs } from 'node:util';
import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { changeAccount, issueApiKey, openAccount, revokeApiKey } from '../command-api/handlers/accounts.ts';
import { isDomainError } from '../domain/errors.ts';

/**
 * The admin operations from the command line, straight on the event store (DATA_DIR):
 *   npm run admin -- accounts create --name X [--email a@b.c] [--features votes,favourites] [--json]
 *   npm run admin -- accounts deactivate <account id>
 *   npm run admin -- accounts features <account id> <feature,feature,...>
 *   npm run admin -- accounts plan <account id> <plan>   (RATE_LIMIT_PLANS names the limits)
 *   npm run admin -- accounts issue-key <account id> [--json]
 *   npm run admin -- accounts revoke-key <account id> <key id>
 */
const usage = `usage:
  npm run admin -- accounts create --name X [--email a@b.c] [--features f1,f2] [--json]
  npm run admin -- accounts deactivate <account id>
  npm run admin -- accounts features <account id> <f1,f2,...>
  npm run admin -- accounts plan <account id> <plan>
  npm run admin -- accounts issue-key <account id> [--json]
  npm run admin -- accounts revoke-key <account id> <key id>`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { name: { type: 'string' }, email: { type: 'string' }, features: { type: 'string' }, json: { type: 'boolean', default: false } },
});
const [group, action, ...rest] = positionals;
const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean));
const context = { accountId: null, requestId: null, actor: 'admin:cli' };

if (group !== 'accounts' || !['create', 'deactivate', 'features', 'plan', 'issue-key', 'revoke-key'].includes(action ?? '')) {
  console.error(usage);
  process.exit(2);
}
if (action === 'create' && !values.name) {
  console.error('--name is required\n' + usage);
  process.exit(2);
}
if (
  (action === 'deactivate' && rest.length !== 1) || (action === 'features' && rest.length !== 2) ||
  (action === 'issue-key' && rest.length !== 1) || (action === 'revoke-key' && rest.length !== 2) ||
  (action === 'plan' && (rest.length !== 2 || !/^[a-z0-9_-]{1,40}$/.test(rest[1] ?? '')))
) {
  console.error(usage);
  process.exit(2);
}

const adapters = await openAdapters(loadConfig());
/** Records the change where running services see it (shared write positions: MONGO_URL), so they re-read the account. */
const changeAndRecord = async (accountId: string, command: Parameters<typeof changeAccount>[2]) => {
  const result = await changeAccount(adapters.eventStore, accountId, command, context);
  if (result.position !== null) await adapters.writePositions.recordAccountChange(accountId, result.position);
  return result;
};
let exitCode = 0;
try {
  if (action === 'create') {
    const created = await openAccount(adapters.eventStore, { name: values.name as string, email: values.email ?? null, features: list(values.features) }, context);
    const output = { account_id: created.account_id, api_key: created.api_key, key_id: created.key_id };
    console.log(values.json ? JSON.stringify(output) : `account ${output.account_id} created; API key ${output.key_id} (shown once): ${output.api_key}`);
  } else if (action === 'issue-key') {
    const issued = await issueApiKey(adapters.eventStore, rest[0], context);
    if (issued.position !== null) await adapters.writePositions.recordAccountChange(rest[0], issued.position);
    const output = { account_id: rest[0], api_key: issued.api_key, key_id: issued.key_id };
    console.log(values.json ? JSON.stringify(output) : `account ${rest[0]}: new API key ${issued.key_id} (shown once): ${issued.api_key}`);
  } else if (action === 'revoke-key') {
    const result = await revokeApiKey(adapters.eventStore, rest[0], rest[1], context);
    if (result.position !== null) await adapters.writePositions.recordAccountChange(rest[0], result.position);
    console.log(result.events.length > 0 ? `key ${rest[1]} of account ${rest[0]} revoked` : `key ${rest[1]} of account ${rest[0]} was already revoked`);
  } else if (action === 'deactivate') {
    const result = await changeAndRecord(rest[0], { type: 'DeactivateAccount', now: new Date().toISOString() });
    console.log(result.events.length > 0 ? `account ${rest[0]} deactivated` : `account ${rest[0]} was already inactive`);
  } else if (action === 'plan') {
    const result = await changeAndRecord(rest[0], { type: 'SetPlan', plan: rest[1], now: new Date().toISOString() });
    console.log(result.events.length > 0 ? `account ${rest[0]} is on plan ${rest[1]}` : `account ${rest[0]} was already on plan ${rest[1]}`);
  } else {
    const result = await changeAndRecord(rest[0], { type: 'SetFeatures', features: list(rest[1]) ?? [], now: new Date().toISOString() });
    console.log(`account ${rest[0]}: ${result.events.map((event) => `${event.type} ${JSON.stringify(event.data)}`).join('; ') || 'no change'}`);
  }
} catch (error) {
  if (!isDomainError(error)) throw error;
  console.error(`${error.code}: ${error.details?.join('; ') ?? error.message}`);
  exitCode = 1;
} finally {
  await adapters.close();
}
process.exit(exitCode);

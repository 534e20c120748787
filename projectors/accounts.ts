import { Collections, type AccountDoc, type ApiKeyDoc } from '../contracts/read-models.ts';
import { accountEvents } from '../domain/accounts/account.ts';
import { defineProjection } from './projection.ts';

/** Accounts and their API keys (by key hash) — what authentication reads. */
export const accountsProjection = defineProjection({
  name: 'accounts',
  collections: [Collections.accounts, Collections.apiKeys],
  streams: [accountEvents],
  async setup(store) {
    await store.collection(Collections.apiKeys).createIndex('account_id');
  },
  async apply(event, store) {
    const accounts = store.collection<AccountDoc>(Collections.accounts);
    const keys = store.collection<ApiKeyDoc>(Collections.apiKeys);
    const position = event.position;
    const update = async (accountId: string, change: (doc: AccountDoc) => Partial<AccountDoc>) => {
      const doc = await accounts.get(accountId);
      if (doc) await accounts.upsert({ ...doc, ...change(doc) }, position);
    };
    switch (event.type) {
      case 'AccountOpened':
        await accounts.upsert(
          {
            _id: event.data.account_id,
            account_id: event.data.account_id,
            name: event.data.name,
            email: event.data.email,
            active: true,
            features: [...event.data.features],
            switched_off: [],
            created_at: event.data.opened_at,
          },
          position,
        );
        return;
      case 'ApiKeyIssued':
        await keys.upsert(
          { _id: event.data.key_hash, key_id: event.data.key_id, account_id: event.data.account_id, revoked: false },
          position,
        );
        return;
      case 'ApiKeyRevoked': {
        const [key] = await keys.find({ account_id: event.data.account_id, key_id: event.data.key_id });
        if (key) await keys.upsert({ ...key, revoked: true }, position);
        return;
      }
      case 'AccountDeactivated':
        return update(event.data.account_id, () => ({ active: false }));
      case 'FeaturesGranted':
        return update(event.data.account_id, (doc) => ({ features: [...new Set([...doc.features, ...event.data.features])] }));
      case 'FeaturesRevoked':
        return update(event.data.account_id, (doc) => ({
          features: doc.features.filter((feature) => !event.data.features.includes(feature as never)),
        }));
      case 'CapabilitySwitchedOff':
        return update(event.data.account_id, (doc) => ({
          switched_off: [...new Set([...doc.switched_off, event.data.capability])],
        }));
      case 'CapabilitySwitchedOn':
        return update(event.data.account_id, (doc) => ({
          switched_off: doc.switched_off.filter((capability) => capability !== event.data.capability),
        }));
      case 'PlanChanged':
        return update(event.data.account_id, () => ({ plan: event.data.plan }));
    }
  },
});

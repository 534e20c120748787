import { Collections, type UploadQuotaDoc } from '../contracts/read-models.ts';
import { quotaEvents, evolveQuota, initialQuotaState } from '../domain/quota/quota.ts';
import { defineProjection } from './projection.ts';

/** Each account's monthly upload quota and usage, folded with the domain's own evolve. */
export const uploadQuotasProjection = defineProjection({
  name: 'upload_quotas',
  collections: [Collections.uploadQuotas],
  streams: [quotaEvents],
  async apply(event, store) {
    const quotas = store.collection<UploadQuotaDoc>(Collections.uploadQuotas);
    const accountId = event.data.account_id;
    const doc = await quotas.get(accountId);
    const state = evolveQuota(doc ? { quota: doc.quota, usage: doc.usage } : initialQuotaState(), event);
    await quotas.upsert({ _id: accountId, account_id: accountId, quota: state.quota, usage: state.usage }, event.position);
  },
});

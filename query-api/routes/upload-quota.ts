import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { UploadQuota } from '../../contracts/image-uploads.ts';
import { errors } from '../../contracts/common.ts';
import { Collections, type UploadQuotaDoc } from '../../contracts/read-models.ts';
import { initialQuotaState, quotaView } from '../../domain/quota/quota.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import type { QueryApiDeps } from '../deps.ts';

/** The caller's monthly image upload quota: this calendar month (UTC). */
export const uploadQuotaQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/accounts/quota',
      {
        schema: { tags: ['accounts'], summary: 'Your monthly image upload quota, usage and what remains', response: { 200: UploadQuota, ...errors(503) } },
      },
      async (request) => {
        if (!deps.images) throw new DomainError('not_ready', 'image settings are not configured in this process');
        const account = accountOf(request);
        const doc = await deps.readStore.collection<UploadQuotaDoc>(Collections.uploadQuotas).get(account.id);
        return quotaView(doc ? { quota: doc.quota, usage: doc.usage } : initialQuotaState(), deps.images.uploadQuota, new Date().toISOString());
      },
    );
  };

import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AccountIdParam, SetUploadQuotaBody, UploadQuota } from '../../../contracts/image-uploads.ts';
import { errors } from '../../../contracts/common.ts';
import { quotaDecider, quotaStream, quotaView } from '../../../domain/quota/quota.ts';
import { accountDecider } from '../../../domain/accounts/decide.ts';
import { accountStream } from '../../../domain/accounts/account.ts';
import { DomainError } from '../../../domain/errors.ts';
import { handleCommand, stateOf } from '../../../infrastructure/event-store/command-handler.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../../deps.ts';

/** Admin: an account's own monthly upload quota (replaces the deployment default IMAGE_UPLOAD_QUOTA). */
export const adminQuotaRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.put(
      '/accounts/:accountId/quota',
      {
        schema: {
          tags: ['admin'],
          summary: 'Set the monthly image upload quota of an account',
          params: AccountIdParam,
          body: SetUploadQuotaBody,
          response: { 200: UploadQuota, ...errors(404) },
        },
        config: { auth: 'admin' },
      },
      async (request) => {
        const { accountId } = request.params;
        const account = await stateOf(deps.eventStore, accountStream(accountId), accountDecider);
        if (account.revision === null) throw new DomainError('not_found', `account ${accountId} not found`);
        const now = new Date().toISOString();
        const result = await handleCommand(
          deps.eventStore,
          quotaStream(accountId),
          quotaDecider,
          { type: 'SetQuota', account_id: accountId, quota: request.body.imageUploadQuota, now },
          contextOf(request),
          { retries: 50 },
        );
        await recordWrite(deps, accountId, result.position, 'quota');
        return quotaView(result.state, deps.images?.uploadQuota ?? 0, now);
      },
    );
  };

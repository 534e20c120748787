import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreatedWebhook, enabledEventsOf, ImportWebhookBody } from '../../../contracts/webhooks.ts';
import { errors } from '../../../contracts/common.ts';
import { DomainError } from '../../../domain/errors.ts';
import { accountDecider } from '../../../domain/accounts/decide.ts';
import { accountStream } from '../../../domain/accounts/account.ts';
import { stateOf } from '../../../infrastructure/event-store/command-handler.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../../deps.ts';
import { registerWebhook } from '../../handlers/webhooks.ts';
import { createdWebhookBody, webhookSettingsOf } from '../webhooks.ts';

/**
 * Admin import of an endpoint on behalf of an account — the only way to set `legacy_unsigned`
 * (endpoints migrated from before signing existed: delivered unsigned until their secret is rotated).
 * Same URL rules and the same limit of five as POST /v1/webhooks.
 */
export const adminWebhookRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/admin/webhooks',
      {
        schema: {
          tags: ['admin'],
          summary: 'Import a webhook endpoint for an account (optionally legacy_unsigned)',
          body: ImportWebhookBody,
          response: { 201: CreatedWebhook, ...errors(404, 409) },
        },
        config: { auth: 'admin' },
      },
      async (request, reply) => {
        const body = request.body;
        const { state } = await stateOf(deps.eventStore, accountStream(body.account_id), accountDecider);
        if (state.status === 'none') throw new DomainError('not_found', 'account not found');
        const { endpoint, signingSecret, position } = await registerWebhook(
          deps.eventStore,
          webhookSettingsOf(deps),
          {
            account_id: body.account_id,
            url: body.url,
            name: body.name ?? null,
            description: body.description ?? '',
            enabled_events: enabledEventsOf(body),
            legacy_unsigned: body.legacy_unsigned ?? false,
          },
          { ...contextOf(request), accountId: body.account_id },
        );
        await recordWrite(deps, body.account_id, position, 'webhooks');
        return reply.code(201).send(createdWebhookBody(endpoint, signingSecret));
      },
    );
  };

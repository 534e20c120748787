import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AccountIdParams, AccountKeyParams, CreateAccountBody, CreatedAccount, IssuedApiKey, SetFeaturesBody, SetPlanBody } from '../../../contracts/accounts.ts';
import { errors, Success } from '../../../contracts/common.ts';
import { changeAccount, issueApiKey, openAccount, revokeApiKey } from '../../handlers/accounts.ts';
import { contextOf, recordAccountChange, untilKeyUsable, type CommandApiDeps } from '../../deps.ts';

/** The admin surface: needs the key in ADMIN_API_KEY. */
export const adminAccountRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const admin = { auth: 'admin' as const };

    /** A change of an account's settings: applied on its stream and recorded before the answer, so its next requests see it. */
    const change = async (request: FastifyRequest, accountId: string, command: Parameters<typeof changeAccount>[2]) => {
      const result = await changeAccount(deps.eventStore, accountId, command, contextOf(request));
      await recordAccountChange(deps, accountId, result.position);
      return { message: 'SUCCESS' as const };
    };

    app.post(
      '/admin/accounts',
      {
        schema: {
          tags: ['admin'],
          summary: 'Create an account and its first API key (shown once)',
          body: CreateAccountBody,
          response: { 201: CreatedAccount, ...errors() },
        },
        config: admin,
      },
      async (request, reply) => {
        const created = await openAccount(deps.eventStore, request.body, contextOf(request));
        await recordAccountChange(deps, created.account_id, created.position);
        await untilKeyUsable(deps, created.position);
        return reply.code(201).send({ account_id: created.account_id, api_key: created.api_key, key_id: created.key_id });
      },
    );

    app.post(
      '/admin/accounts/:id/keys',
      {
        schema: {
          tags: ['admin'],
          summary: 'Issue another API key to an account (shown once); its other keys keep working',
          params: AccountIdParams,
          response: { 201: IssuedApiKey, ...errors(404, 409) },
        },
        config: admin,
      },
      async (request, reply) => {
        const issued = await issueApiKey(deps.eventStore, request.params.id, contextOf(request));
        await recordAccountChange(deps, request.params.id, issued.position);
        await untilKeyUsable(deps, issued.position);
        return reply.code(201).send({ api_key: issued.api_key, key_id: issued.key_id });
      },
    );

    app.delete(
      '/admin/accounts/:id/keys/:keyId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Revoke one API key of an account: it answers 403 invalid_api_key from the next request on',
          params: AccountKeyParams,
          response: { 200: Success, ...errors(404, 409) },
        },
        config: admin,
      },
      async (request) => {
        const result = await revokeApiKey(deps.eventStore, request.params.id, request.params.keyId, contextOf(request));
        await recordAccountChange(deps, request.params.id, result.position);
        return { message: 'SUCCESS' as const };
      },
    );

    app.post(
      '/admin/accounts/:id/deactivate',
      {
        schema: {
          tags: ['admin'],
          summary: 'Deactivate an account: its keys then answer 401',
          params: AccountIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: admin,
      },
      async (request) => change(request, request.params.id, { type: 'DeactivateAccount', now: new Date().toISOString() }),
    );

    app.put(
      '/admin/accounts/:id/features',
      {
        schema: {
          tags: ['admin'],
          summary: 'Set the complete list of features of an account',
          params: AccountIdParams,
          body: SetFeaturesBody,
          response: { 200: Success, ...errors(404) },
        },
        config: admin,
      },
      async (request) => change(request, request.params.id, { type: 'SetFeatures', features: request.body.features, now: new Date().toISOString() }),
    );

    app.put(
      '/admin/accounts/:id/plan',
      {
        schema: {
          tags: ['admin'],
          summary: 'Set the plan of an account (its request rate limit per API key, from RATE_LIMIT_PLANS)',
          params: AccountIdParams,
          body: SetPlanBody,
          response: { 200: Success, ...errors(404) },
        },
        config: admin,
      },
      async (request) => change(request, request.params.id, { type: 'SetPlan', plan: request.body.plan, now: new Date().toISOString() }),
    );
  };

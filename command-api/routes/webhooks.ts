import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreatedWebhook, enabledEventsOf, CreateWebhookBody, RedeliveryAccepted, RotatedSecret, WebhookDeliveryParams, WebhookIdParams } from '../../contracts/webhooks.ts';
import { errors, Success } from '../../contracts/common.ts';
import { DomainError } from '../../domain/errors.ts';
import type { WebhookEndpointRegistered } from '../../domain/webhooks/endpoint.ts';
import { accountOf } from '../../http/auth.ts';
import { contextOf, recordWrite, type CommandApiDeps, type WebhookCommandSettings } from '../deps.ts';
import { deleteWebhook, redeliverWebhook, registerWebhook, rotateWebhookSecret } from '../handlers/webhooks.ts';

/** The answer to a registration, from the event just decided; the secret appears here once. */
export const createdWebhookBody = (endpoint: WebhookEndpointRegistered['data'], signingSecret: string | null) => ({
  message: 'SUCCESS' as const,
  id: endpoint.webhook_id,
  url: endpoint.url,
  name: endpoint.name ?? null,
  description: endpoint.description,
  enabled_events: endpoint.enabled_events,
  status: 'enabled' as const,
  signed: !endpoint.legacy_unsigned,
  consecutive_failures: 0,
  created_at: endpoint.registered_at,
  disabled_at: null,
  secret_rotated_at: null,
  signing_secret: signingSecret,
});

export const webhookSettingsOf = (deps: CommandApiDeps): WebhookCommandSettings => {
  if (!deps.webhooks) throw new DomainError('not_ready', 'webhooks are not configured in this process');
  return deps.webhooks;
};

export const webhookCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const feature = { feature: 'webhooks' as const };

    app.post(
      '/webhooks',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Register a webhook endpoint (its signing_secret is shown once, here)',
          body: CreateWebhookBody,
          response: { 201: CreatedWebhook, ...errors(409) },
        },
        config: feature,
      },
      async (request, reply) => {
        const account = accountOf(request);
        const { endpoint, signingSecret, position } = await registerWebhook(
          deps.eventStore,
          webhookSettingsOf(deps),
          {
            account_id: account.id,
            url: request.body.url,
            name: request.body.name ?? null,
            description: request.body.description ?? '',
            enabled_events: enabledEventsOf(request.body),
            legacy_unsigned: false,
          },
          contextOf(request),
        );
        await recordWrite(deps, account.id, position, 'webhooks');
        return reply.code(201).send(createdWebhookBody(endpoint, signingSecret));
      },
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: { tags: ['webhooks'], summary: 'Remove a webhook endpoint', params: WebhookIdParams, response: { 200: Success, ...errors(404) } },
        config: feature,
      },
      async (request) => {
        const account = accountOf(request);
        const result = await deleteWebhook(deps.eventStore, request.params.id, account.id, contextOf(request));
        await recordWrite(deps, account.id, result.position, 'webhooks');
        return { message: 'SUCCESS' as const };
      },
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Issue a new signing secret; the old one stops working at once',
          params: WebhookIdParams,
          response: { 200: RotatedSecret, ...errors(404) },
        },
        config: feature,
      },
      async (request) => {
        const account = accountOf(request);
        const result = await rotateWebhookSecret(deps.eventStore, webhookSettingsOf(deps), request.params.id, account.id, contextOf(request));
        await recordWrite(deps, account.id, result.position, 'webhooks');
        return { message: 'SUCCESS' as const, id: request.params.id, signing_secret: result.signingSecret };
      },
    );

    app.post(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Deliver a finished delivery again (a new round of up to three attempts)',
          params: WebhookDeliveryParams,
          response: { 202: RedeliveryAccepted, ...errors(404, 409, 503) },
        },
        config: feature,
      },
      async (request, reply) => {
        const account = accountOf(request);
        const result = await redeliverWebhook(deps.eventStore, request.params.id, request.params.deliveryId, account.id, contextOf(request), deps.readStore);
        await recordWrite(deps, account.id, result.position, 'webhooks');
        return reply.code(202).send({ message: 'SUCCESS' as const, id: request.params.deliveryId, status: 'pending' as const });
      },
    );
  };

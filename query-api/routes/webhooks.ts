import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ListDeliveriesQuery, WebhookDelivery, WebhookEndpoint, WebhookIdParams, WebhookTopicList } from '../../contracts/webhooks.ts';
import { errors } from '../../contracts/common.ts';
import { Collections, type WebhookDeliveryDoc, type WebhookDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { WEBHOOK_TOPICS } from '../../domain/webhooks/topics.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

export const toWebhookEndpoint = (doc: WebhookDoc) => ({
  id: doc.id,
  url: doc.url,
  name: doc.name ?? null,
  description: doc.description,
  enabled_events: doc.enabled_events,
  status: doc.status,
  signed: !doc.legacy_unsigned,
  consecutive_failures: doc.consecutive_failures,
  created_at: doc.created_at,
  disabled_at: doc.disabled_at,
  secret_rotated_at: doc.secret_rotated_at,
});

export const toWebhookDelivery = (doc: WebhookDeliveryDoc) => ({
  id: doc.id,
  webhook_id: doc.webhook_id,
  event_id: doc.event_id,
  event_type: doc.event_type,
  status: doc.status,
  created_at: doc.created_at,
  updated_at: doc.updated_at,
  next_attempt_at: doc.next_attempt_at,
  status_reason: doc.status_reason,
  attempts: [...doc.attempts].sort((a, b) => a.attempt - b.attempt),
  payload: doc.payload,
});

export const webhookQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const feature = { feature: 'webhooks' as const };
    const webhooks = () => deps.readStore.collection<WebhookDoc>(Collections.webhooks);
    const deliveries = () => deps.readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);

    const ownWebhook = async (id: string, accountId: string): Promise<WebhookDoc> => {
      const doc = await findFresh(deps, () => webhooks().get(id));
      if (!doc) throw new DomainError('not_found', 'webhook endpoint not found');
      if (doc.account_id !== accountId) throw new DomainError('forbidden', 'this webhook endpoint belongs to another account');
      return doc;
    };

    app.get(
      '/webhooks/topics',
      {
        schema: { tags: ['webhooks'], summary: 'Event names an endpoint can subscribe to', response: { 200: WebhookTopicList, ...errors() } },
        config: feature,
      },
      async () => [...WEBHOOK_TOPICS],
    );

    app.get(
      '/webhooks',
      {
        schema: { tags: ['webhooks'], summary: 'Your webhook endpoints (at most five)', response: { 200: Type.Array(WebhookEndpoint), ...errors() } },
        config: feature,
      },
      async (request) => {
        const account = accountOf(request);
        const docs = await webhooks().find({ account_id: account.id }, { sort: { created_at: 1, _id: 1 } });
        return docs.map(toWebhookEndpoint);
      },
    );

    app.get(
      '/webhooks/:id',
      {
        schema: { tags: ['webhooks'], summary: 'One of your webhook endpoints', params: WebhookIdParams, response: { 200: WebhookEndpoint, ...errors(404) } },
        config: feature,
      },
      async (request) => toWebhookEndpoint(await ownWebhook(request.params.id, accountOf(request).id)),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        schema: {
          tags: ['webhooks'],
          summary: 'Delivery log of an endpoint: attempts, status codes, durations, errors (paging style A, newest first)',
          params: WebhookIdParams,
          querystring: ListDeliveriesQuery,
          response: { 200: Type.Array(WebhookDelivery), ...errors(404) },
        },
        config: { ...feature, paged: true },
      },
      async (request, reply) => {
        const webhook = await ownWebhook(request.params.id, accountOf(request).id);
        const filter = { webhook_id: webhook.id, ...(request.query.status ? { status: request.query.status } : {}) };
        const docs = await pageStyleA(reply, deliveries(), filter, request.query, { sortField: 'created_at', defaultOrder: 'DESC' });
        return docs.map(toWebhookDelivery);
      },
    );
  };

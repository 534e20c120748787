import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Operation, OperationIdParams, OperationList, OpsStatus, VerifyBody } from '../../../contracts/ops.ts';
import { errors } from '../../../contracts/common.ts';
import { Collections, type WebhookDeliveryDoc, type WebhookDoc } from '../../../contracts/read-models.ts';
import { DomainError } from '../../../domain/errors.ts';
import { checkpointLags } from '../../../infrastructure/metrics/lag.ts';
import type { OpsDeps } from '../../ops-deps.ts';

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'abandoned'] as const;

/**
 * The operations view for the console (admin key): projection and relay lag, consumer groups
 * with their lag, webhook endpoints (disabled ones listed) and recent deliveries, and verified
 * replays run in the background with their progress.
 */
export const adminOpsRoutes =
  (deps: OpsDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/admin/ops/status',
      {
        schema: { tags: ['admin', 'operations'], summary: 'Projection lag, consumer groups and webhooks at a glance', response: { 200: OpsStatus, ...errors() } },
        config: { auth: 'admin' },
      },
      async () => {
        const head = deps.head();
        const [lags, busLag] = await Promise.all([checkpointLags(deps.eventStore, deps.readStore, deps.checkpoints, head), deps.busLag?.() ?? []]);
        const webhooks = deps.readStore.collection<WebhookDoc>(Collections.webhooks);
        const deliveries = deps.readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);
        const groups = [...new Set([...deps.consumerGroups, ...busLag.map((entry) => entry.group)])];
        return {
          head_position: head.toString(),
          adapters: deps.adapters,
          projections: lags.map((lag) => ({ name: lag.name, checkpoint: lag.checkpoint.toString(), lag_events: lag.lagEvents, lag_seconds: lag.lagSeconds })),
          consumer_groups: groups.map((group) => ({ group, lag_messages: busLag.find((entry) => entry.group === group)?.messages ?? null })),
          webhooks: {
            endpoints: { enabled: await webhooks.count({ status: 'enabled' }), disabled: await webhooks.count({ status: 'disabled' }) },
            deliveries: Object.fromEntries(await Promise.all(DELIVERY_STATUSES.map(async (status) => [status, await deliveries.count({ status })] as const))),
            disabled: (await webhooks.find({ status: 'disabled' }, { sort: { disabled_at: -1 }, limit: 20 })).map((doc) => ({
              id: doc.id,
              account_id: doc.account_id,
              url: doc.url,
              disabled_at: doc.disabled_at,
            })),
            recent_deliveries: (await deliveries.find({}, { sort: { updated_at: -1 }, limit: 10 })).map((doc) => ({
              id: doc.id,
              webhook_id: doc.webhook_id,
              event_type: doc.event_type,
              status: doc.status,
              attempts: doc.attempts.length,
              updated_at: doc.updated_at,
            })),
          },
        };
      },
    );

    app.post(
      '/admin/operations/verify',
      {
        schema: {
          tags: ['admin', 'operations'],
          summary: 'Start a verified replay (rebuild into a scratch store and compare) in the background',
          body: VerifyBody,
          response: { 202: Operation, ...errors(404, 409) },
        },
        config: { auth: 'admin' },
      },
      async (request, reply) => {
        const { projection } = request.body;
        if (projection !== 'all' && !deps.projections.includes(projection)) {
          throw new DomainError('not_found', `unknown projection '${projection}'; known: ${deps.projections.join(', ')}, all`);
        }
        if (deps.operations.list().some((operation) => operation.status === 'running')) {
          throw new DomainError('conflict', 'a verify is already running; wait for it to finish');
        }
        const operation = deps.operations.startVerify(projection);
        return reply.code(202).header('location', `/v1/admin/operations/${operation.id}`).send(operation);
      },
    );

    app.get(
      '/admin/operations',
      {
        schema: { tags: ['admin', 'operations'], summary: 'Background operations of this process, newest first', response: { 200: OperationList, ...errors() } },
        config: { auth: 'admin' },
      },
      async () => deps.operations.list(),
    );

    app.get(
      '/admin/operations/:id',
      {
        schema: {
          tags: ['admin', 'operations'],
          summary: 'One background operation with its progress and results',
          params: OperationIdParams,
          response: { 200: Operation, ...errors(404) },
        },
        config: { auth: 'admin' },
      },
      async (request) => {
        const operation = deps.operations.get(request.params.id);
        if (!operation) throw new DomainError('not_found', 'operation not found');
        return operation;
      },
    );
  };

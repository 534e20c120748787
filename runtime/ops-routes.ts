import type { FastifyPluginAsync } from 'fastify';
import type { Adapters } from '../infrastructure/adapters.ts';
import type { Config } from '../infrastructure/config.ts';
import type { ProcessOps } from '../infrastructure/ops.ts';
import { projections } from '../projectors/index.ts';
import { RELAY_CHECKPOINT } from '../projectors/relay.ts';
import { processorGroups } from '../processors/index.ts';
import { DISPATCHER_CONTROL_GROUP, DISPATCHER_GROUP } from '../webhook-dispatcher/index.ts';
import { adminOpsRoutes } from '../query-api/routes/admin/ops.ts';
import { adminConsoleRoutes } from '../query-api/routes/admin/console.ts';
import { operationsRegistry } from './operations.ts';

/** Every consumer group of the service, from the registries: processors, then the dispatcher's. */
export const consumerGroupsOf = (config: Pick<Config, 'runWebhookDispatcher' | 'runProcessors'>): string[] => [
  ...(config.runProcessors === false ? [] : processorGroups()),
  ...(config.runWebhookDispatcher === false ? [] : [DISPATCHER_GROUP, DISPATCHER_CONTROL_GROUP]),
];

/**
 * The operations routes (status, background verify, console) with what they need from the
 * registries: the projection list (projectors/index.ts) and the consumer groups, so new ones show
 * up without touching the routes. Registered under /v1 by the processes that have projector code.
 */
export const opsRoutes =
  (options: { config: Config; adapters: Adapters; ops: ProcessOps; consumerGroups: readonly string[] }): FastifyPluginAsync =>
  async (app) => {
    const operations = operationsRegistry({
      config: options.config,
      eventStore: options.adapters.eventStore,
      readStore: options.adapters.readStore,
      projections,
      onError: (error) => app.log.error({ err: error }, 'background operation failed'),
    });
    app.addHook('onClose', async () => operations.idle());
    await app.register(
      adminOpsRoutes({
        readStore: options.adapters.readStore,
        eventStore: options.adapters.eventStore,
        head: () => options.ops.head.position,
        adapters: options.adapters.kinds,
        checkpoints: [...projections.map((projection) => projection.name), ...(options.adapters.broker ? [RELAY_CHECKPOINT] : [])],
        projections: projections.map((projection) => projection.name),
        consumerGroups: options.consumerGroups,
        busLag: options.adapters.bus.lag?.bind(options.adapters.bus),
        operations,
      }),
    );
    await app.register(adminConsoleRoutes());
  };

import type { Logger } from 'pino';
import { openAdapters, type Adapters } from '../infrastructure/adapters.ts';
import { assertDeploymentSecrets, type Config } from '../infrastructure/config.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { createHttpApp, type HttpApp } from '../http/app.ts';
import { authDependenciesOf } from '../http/auth.ts';
import { httpLimitsOf } from '../http/limits.ts';
import { commandApi } from '../command-api/plugin.ts';
import { commandApiDepsOf } from '../command-api/deps.ts';
import { queryApi, queryApiOptionsOf } from '../query-api/plugin.ts';
import { projections } from '../projectors/index.ts';
import { startProjections } from '../projectors/runner.ts';
import { startRelay } from '../projectors/relay.ts';
import { processors as allProcessors, startProcessors } from '../processors/index.ts';
import type { VisionModels } from '../infrastructure/vision/port.ts';
import { openVisionModels } from '../infrastructure/vision/index.ts';
import { visionProviderFromEnv, withVisionProvider } from '../infrastructure/vision/hosted.ts';
import { startDispatcher } from '../webhook-dispatcher/index.ts';
import { READ_MODEL_PROJECTIONS, Collections } from '../contracts/read-models.ts';
import { openAccount } from '../command-api/handlers/accounts.ts';
import { CATALOGUE_ACCOUNT_ID } from '../domain/accounts/account.ts';
import { importReferenceDataOnStart } from './reference-data-import.ts';
import { loadOpsConfig, type OpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps, type ProcessOps } from '../infrastructure/ops.ts';
import { RELAY_CHECKPOINT } from '../projectors/relay.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { consumerGroupsOf, opsRoutes } from './ops-routes.ts';

export type RunningService = {
  app: HttpApp;
  adapters: Adapters;
  url: string;
  ops: ProcessOps;
  stop: () => Promise<void>;
};

/** Waits until every read model has caught up with the log as it is now (bounded). */
const catchUp = async (adapters: Adapters, timeoutMs: number): Promise<boolean> =>
  adapters.readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, await adapters.eventStore.headPosition(), timeoutMs);

/**
 * On the first start with no accounts, one demo account is opened and its key printed once, so a
 * newcomer can call the API straight away. The catalogue account (a photo import run before the
 * first start opens it) has no key and does not count.
 */
const ensureDemoAccount = async (adapters: Adapters, logger: Logger): Promise<void> => {
  await catchUp(adapters, 30_000);
  if ((await adapters.readStore.collection(Collections.accounts).count({ _id: { $ne: CATALOGUE_ACCOUNT_ID } })) > 0) return;
  const demo = await openAccount(adapters.eventStore, { name: 'Demo account' }, { accountId: null, requestId: null, actor: 'system:bootstrap' });
  logger.info({ account_id: demo.account_id }, 'demo account created');
  process.stdout.write(
    `\n  Demo account ${demo.account_id} created. Its API key is shown only this once:\n\n    x-api-key: ${demo.api_key}\n\n`,
  );
};

/**
 * The whole service in one process: command API and query API behind one /v1 Fastify surface,
 * projectors, the relay (with a broker), processors and the webhook dispatcher.
 */
/**
 * `vision`: the image models for the pipeline processors (validation, labelling); by default the
 * real ones (infrastructure/vision, loaded on first use). `ops`: metrics/readiness settings.
 */
export type AllInOneOptions = { logger?: boolean; ops?: Partial<OpsConfig>; vision?: VisionModels };

/**
 * The all-in-one's HTTP surface: command API, query API and operations behind one /v1, with the
 * shared hooks (request ids, authentication, rate limits, CORS, metrics). `eventStore` is the one
 * the command routes append to (the bench's request-path figure gives one whose appends cost
 * nothing: bench/children/request-path.ts).
 */
export const allInOneHttpApp = async (parts: {
  config: Config;
  adapters: Adapters;
  ops: ProcessOps;
  metricsToken: OpsConfig['metricsToken'];
  logger: boolean | undefined;
  eventStore: EventStore;
}): Promise<HttpApp> => {
  const { config, adapters, ops } = parts;
  const app = await createHttpApp({
    title: 'Animal, pet and image data API',
    logLevel: config.logLevel,
    logger: parts.logger,
    ...httpLimitsOf(config),
    auth: authDependenciesOf(config, adapters),
    readiness: ops.readiness,
    metrics: { metrics: ops.metrics, token: parts.metricsToken },
  });
  await app.register(commandApi(commandApiDepsOf(config, adapters, parts.eventStore)), { prefix: '/v1' });
  await app.register(queryApi(queryApiOptionsOf(config, adapters)), { prefix: '/v1' });
  await app.register(opsRoutes({ config, adapters, ops, consumerGroups: consumerGroupsOf(config) }), { prefix: '/v1' });
  return app;
};

export const startAllInOne = async (config: Config, options: AllInOneOptions = {}): Promise<RunningService> => {
  assertDeploymentSecrets(config, { serveAdmin: true });
  const logger = createLogger('all-in-one', options.logger === false ? 'silent' : config.logLevel);
  const adapters = await openAdapters(config);
  const opsConfig = { ...loadOpsConfig(), ...options.ops };
  const ops = await startProcessOps({
    name: 'all-in-one',
    ops: opsConfig,
    adapters,
    readyCheckpoints: READ_MODEL_PROJECTIONS,
    lagCheckpoints: adapters.broker ? [...READ_MODEL_PROJECTIONS, RELAY_CHECKPOINT] : READ_MODEL_PROJECTIONS,
    readModelGauges: { webhooks: Collections.webhooks, webhookDeliveries: Collections.webhookDeliveries },
    logger,
    uploadMemoryBudgetMb: config.uploadMemoryBudgetMb,
  });
  // Before the subscriptions start, so the import does not compete with them (cheap when unchanged).
  const imported = config.referenceDataImport ? await importReferenceDataOnStart(adapters, logger) : false;
  const projectors = await startProjections(adapters.eventStore, adapters.readStore, projections, logger);
  // A broker is fed by the relay; the embedded bus reads the log itself.
  const relay = adapters.broker ? await startRelay(adapters.eventStore, adapters.readStore, adapters.broker, logger) : null;
  // VISION_PROVIDER_URL/_MODEL/_API_KEY: detection by a hosted model (infrastructure/vision/hosted.ts); unset, the built-in models.
  const vision = options.vision ?? withVisionProvider(openVisionModels(), visionProviderFromEnv());
  const processors = config.runProcessors
    ? await startProcessors(adapters.bus, ops.eventStore, logger, allProcessors, {
        blobs: adapters.blobs,
        readStore: adapters.readStore,
        vision,
      }, {
        onFailure: (name) => ops.metrics.processorFailures.inc({ processor: name }),
      })
    : null;
  if (imported) await catchUp(adapters, 60_000);
  if (config.demoAccount) await ensureDemoAccount(adapters, logger);

  const app = await allInOneHttpApp({ config, adapters, ops, metricsToken: opsConfig.metricsToken, logger: options.logger, eventStore: ops.eventStore });
  if (!config.adminApiKey) logger.warn('ADMIN_API_KEY is not set: the /v1/admin operations answer 403 (use npm run admin instead)');

  const address = await app.listen({ port: config.port, host: config.host });
  // After the HTTP app is built: compiling its schemas holds the event loop for seconds on a busy
  // machine, and attempts already on their way would run into their timeouts meanwhile.
  const dispatcher = config.runWebhookDispatcher
    ? await startDispatcher({ ...adapters, eventStore: ops.eventStore, logger, publicBaseUrl: config.publicBaseUrl, options: { allowPrivateTargets: config.webhookAllowPrivateTargets } })
    : null;
  logger.info({ url: address, adapters: adapters.kinds }, 'listening');

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await dispatcher?.stop();
      await processors?.stop();
      if (!options.vision) await vision.close();
      await relay?.stop();
      await projectors.stop();
      await ops.stop();
      await adapters.close();
    })());
  return { app, adapters, url: address, ops, stop };
};

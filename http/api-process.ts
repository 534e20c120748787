import type { FastifyPluginAsync } from 'fastify';
import { openAdapters, type Adapters } from '../infrastructure/adapters.ts';
import { assertDeploymentSecrets, loadConfig, type Config } from '../infrastructure/config.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps, type ProcessOps } from '../infrastructure/ops.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { createHttpApp } from './app.ts';
import { authDependenciesOf } from './auth.ts';
import { httpLimitsOf } from './limits.ts';

export type ApiProcessOptions = {
  /** The process's name in logs and metrics (`command-api`, `query-api`). */
  name: string;
  /** The OpenAPI document's title. */
  title: string;
  /** Read models this process waits for before /ready answers 200. */
  readyCheckpoints?: readonly string[];
  /** The process's routes, registered under /v1. */
  routes: (config: Config, adapters: Adapters, ops: ProcessOps) => FastifyPluginAsync;
};

/**
 * One half of the API as a process of its own (`command-api/main.ts`, `query-api/main.ts`): the
 * configuration from the environment, the adapters, metrics and readiness (METRICS_PORT), the
 * shared HTTP surface with the process's routes under /v1, listening on PORT, and a graceful stop
 * on SIGTERM from the moment it starts.
 */
export const runApiProcess = (options: ApiProcessOptions): Promise<void> => {
  const config = loadConfig();
  assertDeploymentSecrets(config, { serveAdmin: true });
  const start = async (): Promise<() => Promise<void>> => {
    const adapters = await openAdapters(config);
    const opsConfig = loadOpsConfig();
    const ops = await startProcessOps({
      name: options.name,
      ops: opsConfig,
      adapters,
      readyCheckpoints: options.readyCheckpoints,
      logger: createLogger(options.name, config.logLevel),
      uploadMemoryBudgetMb: config.uploadMemoryBudgetMb,
    });
    const app = await createHttpApp({
      title: options.title,
      ...httpLimitsOf(config),
      logLevel: config.logLevel,
      auth: authDependenciesOf(config, adapters),
      readiness: ops.readiness,
      metrics: { metrics: ops.metrics, token: opsConfig.metricsToken },
    });
    await app.register(options.routes(config, adapters, ops), { prefix: '/v1' });
    await app.listen({ port: config.port, host: config.host });
    return async () => {
      await app.close();
      await ops.stop();
      await adapters.close();
    };
  };
  return onShutdownOnceStarted(start());
};

import { assertDeploymentSecrets, loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createHttpApp } from '../http/app.ts';
import { authDependenciesOf } from '../http/auth.ts';
import { httpLimitsOf } from '../http/limits.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { imageSettingsOf } from '../http/image-settings.ts';
import { queryApi } from './plugin.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';

/** The query API on its own: the read half of /v1, served from the read models. */
const config = loadConfig();
assertDeploymentSecrets(config, { serveAdmin: true });

const start = async (): Promise<() => Promise<void>> => {
  const adapters = await openAdapters(config);
  const opsConfig = loadOpsConfig();
  const ops = await startProcessOps({ name: 'query-api', ops: opsConfig, adapters, readyCheckpoints: READ_MODEL_PROJECTIONS });
  const app = await createHttpApp({
    title: 'Animal data API — queries',
    ...httpLimitsOf(config),
    logLevel: config.logLevel,
    auth: authDependenciesOf(config, adapters),
    readiness: ops.readiness,
    metrics: { metrics: ops.metrics, token: opsConfig.metricsToken },
  });
  await app.register(
    queryApi({ readStore: adapters.readStore, eventStore: adapters.eventStore, writePositions: adapters.writePositions, readYourWritesTimeoutMs: config.readYourWritesTimeoutMs, images: imageSettingsOf(config, adapters.blobs) }),
    { prefix: '/v1' },
  );
  await app.listen({ port: config.port, host: config.host });
  return async () => {
    await app.close();
    await ops.stop();
    await adapters.close();
  };
};
await onShutdownOnceStarted(start());

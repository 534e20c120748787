import { join } from 'node:path';
import { assertDeploymentSecrets, loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createHttpApp } from '../http/app.ts';
import { authDependenciesOf } from '../http/auth.ts';
import { httpLimitsOf } from '../http/limits.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { imageSettingsOf } from '../http/image-settings.ts';
import { commandApi } from './plugin.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';

/** The command API on its own: the write half of /v1. */
const config = loadConfig();
assertDeploymentSecrets(config, { serveAdmin: true });

const start = async (): Promise<() => Promise<void>> => {
  const adapters = await openAdapters(config);
  const opsConfig = loadOpsConfig();
  const ops = await startProcessOps({ name: 'command-api', ops: opsConfig, adapters });
  const app = await createHttpApp({
    title: 'Animal data API — commands',
    ...httpLimitsOf(config),
    logLevel: config.logLevel,
    auth: authDependenciesOf(config, adapters),
    readiness: ops.readiness,
    metrics: { metrics: ops.metrics, token: opsConfig.metricsToken },
  });
  await app.register(
    commandApi({
      eventStore: ops.eventStore,
      writePositions: adapters.writePositions,
      webhooks: { secrets: adapters.secrets, allowPrivateTargets: config.webhookAllowPrivateTargets },
      images: imageSettingsOf(config, adapters.blobs),
      blobs: adapters.blobs,
      uploadTempDir: join(config.dataDir, 'uploads-tmp'),
      readStore: adapters.readStore,
    }),
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

import { assertDeploymentSecrets, loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createHttpApp } from '../http/app.ts';
import { authDependenciesOf } from '../http/auth.ts';
import { httpLimitsOf } from '../http/limits.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { commandApi } from './plugin.ts';

/** The command API on its own: the write half of /v1. */
const config = loadConfig();
assertDeploymentSecrets(config, { serveAdmin: true });
const adapters = await openAdapters(config);
const app = await createHttpApp({
  title: 'Animal data API — commands',
  ...httpLimitsOf(config),
  logLevel: config.logLevel,
  auth: authDependenciesOf(config, adapters),
  readiness: async () => ({ ready: (await adapters.eventStore.headPosition()) >= 0n }),
});
await app.register(
  commandApi({
    eventStore: adapters.eventStore,
    writePositions: adapters.writePositions,
    webhooks: { secrets: adapters.secrets, allowPrivateTargets: config.webhookAllowPrivateTargets },
    readStore: adapters.readStore,
  }),
  { prefix: '/v1' },
);
await app.listen({ port: config.port, host: config.host });
onShutdown(async () => {
  await app.close();
  await adapters.close();
});

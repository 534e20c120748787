import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { startDispatcher } from './index.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';

/** The webhook dispatcher on its own, consuming the bus in its own consumer group. */
const config = loadConfig();
const logger = createLogger('webhook-dispatcher', config.logLevel);

const start = async (): Promise<() => Promise<void>> => {
  const adapters = await openAdapters(config);
  const ops = await startProcessOps({ name: 'webhook-dispatcher', ops: loadOpsConfig(), adapters, logger });
  const running = await startDispatcher({ ...adapters, eventStore: ops.eventStore, logger, publicBaseUrl: config.publicBaseUrl, options: { allowPrivateTargets: config.webhookAllowPrivateTargets } });
  return async () => {
    await running.stop();
    await ops.stop();
    await adapters.close();
  };
};
await onShutdownOnceStarted(start());

import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { startDispatcher } from './index.ts';

/** The webhook dispatcher on its own, consuming the bus in its own consumer group. */
const config = loadConfig();
const logger = createLogger('webhook-dispatcher', config.logLevel);
const adapters = await openAdapters(config);
const running = await startDispatcher({ ...adapters, logger, options: { allowPrivateTargets: config.webhookAllowPrivateTargets } });
onShutdown(async () => {
  await running.stop();
  await adapters.close();
});

import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { startProcessors } from './index.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';

/** The processors on their own, consuming the bus in their consumer groups. */
const config = loadConfig();
const logger = createLogger('processors', config.logLevel);
const adapters = await openAdapters(config);
const ops = await startProcessOps({ name: 'processors', ops: loadOpsConfig(), adapters });
const running = await startProcessors(adapters.bus, ops.eventStore, logger, undefined, {
  onFailure: (name) => ops.metrics.processorFailures.inc({ processor: name }),
});
onShutdown(async () => {
  await running.stop();
  await ops.stop();
  await adapters.close();
});

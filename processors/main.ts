import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { processors, startProcessors } from './index.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';
import { openVisionModels } from '../infrastructure/vision/index.ts';
import { visionProviderFromEnv, withVisionProvider } from '../infrastructure/vision/hosted.ts';

/** The processors on their own, consuming the bus in their consumer groups. */
const config = loadConfig();
const logger = createLogger('processors', config.logLevel);

const start = async (): Promise<() => Promise<void>> => {
  const adapters = await openAdapters(config);
  const ops = await startProcessOps({ name: 'processors', ops: loadOpsConfig(), adapters, logger });
  // The image models (infrastructure/vision): loaded on first use, in worker threads.
  const vision = withVisionProvider(openVisionModels(), visionProviderFromEnv());
  const running = await startProcessors(adapters.bus, ops.eventStore, logger, processors, { blobs: adapters.blobs, readStore: adapters.readStore, vision }, {
    onFailure: (name) => ops.metrics.processorFailures.inc({ processor: name }),
  });
  return async () => {
    await running.stop();
    await vision.close();
    await ops.stop();
    await adapters.close();
  };
};
await onShutdownOnceStarted(start());

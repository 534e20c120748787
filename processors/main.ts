import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { processors, startProcessors } from './index.ts';

/** The processors on their own, consuming the bus in their consumer groups. */
const config = loadConfig();
const logger = createLogger('processors', config.logLevel);
const adapters = await openAdapters(config);
// The image models join here as `vision` (infrastructure/vision): without them the image pipeline does not start.
const running = await startProcessors(adapters.bus, adapters.eventStore, logger, processors, { blobs: adapters.blobs, readStore: adapters.readStore });
onShutdown(async () => {
  await running.stop();
  await adapters.close();
});

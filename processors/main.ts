import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { startProcessors } from './index.ts';

/** The processors on their own, consuming the bus in their consumer groups. */
const config = loadConfig();
const logger = createLogger('processors', config.logLevel);
const adapters = await openAdapters(config);
const running = await startProcessors(adapters.bus, adapters.eventStore, logger, undefined, { blobs: adapters.blobs });
onShutdown(async () => {
  await running.stop();
  await adapters.close();
});

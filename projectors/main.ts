import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { projections } from './index.ts';
import { startProjections } from './runner.ts';
import { startRelay } from './relay.ts';

/** The projectors on their own: read models and the relay to the bus. */
const config = loadConfig();
const logger = createLogger('projectors', config.logLevel);
const adapters = await openAdapters(config);
const running = await startProjections(adapters.eventStore, adapters.readStore, projections, logger);
const relay = await startRelay(adapters.eventStore, adapters.readStore, adapters.bus, logger);
onShutdown(async () => {
  await relay.stop();
  await running.stop();
  await adapters.close();
});

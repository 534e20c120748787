import { loadConfig } from '../infrastructure/config.ts';
import { openAdapters } from '../infrastructure/adapters.ts';
import { createLogger } from '../infrastructure/logger.ts';
import { onShutdownOnceStarted } from '../infrastructure/shutdown.ts';
import { projections } from './index.ts';
import { startProjections } from './runner.ts';
import { RELAY_CHECKPOINT, startRelay } from './relay.ts';
import { loadOpsConfig } from '../infrastructure/ops-config.ts';
import { startProcessOps } from '../infrastructure/ops.ts';
import { Collections } from '../contracts/read-models.ts';

/** The projectors on their own: read models, and the relay when a broker is configured. */
const config = loadConfig();
const logger = createLogger('projectors', config.logLevel);

const start = async (): Promise<() => Promise<void>> => {
  const adapters = await openAdapters(config);
  const names = projections.map((projection) => projection.name);
  const ops = await startProcessOps({
    name: 'projectors',
    ops: loadOpsConfig(),
    adapters,
    readyCheckpoints: names,
    lagCheckpoints: adapters.broker ? [...names, RELAY_CHECKPOINT] : names,
    readModelGauges: { webhooks: Collections.webhooks, webhookDeliveries: Collections.webhookDeliveries },
    logger,
  });
  const running = await startProjections(adapters.eventStore, adapters.readStore, projections, logger);
  // A broker is fed by the relay; the embedded bus reads the log itself.
  const relay = adapters.broker ? await startRelay(adapters.eventStore, adapters.readStore, adapters.broker, logger) : null;
  return async () => {
    await relay?.stop();
    await running.stop();
    await ops.stop();
    await adapters.close();
  };
};
await onShutdownOnceStarted(start());

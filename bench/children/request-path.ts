import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../infrastructure/config.ts';
import { openAdapters } from '../../infrastructure/adapters.ts';
import { loadOpsConfig } from '../../infrastructure/ops-config.ts';
import { startProcessOps } from '../../infrastructure/ops.ts';
import { instrumentEventStore } from '../../infrastructure/metrics/metrics.ts';
import type { AppendResult, EventStore, ExpectedRevision } from '../../infrastructure/event-store/port.ts';
import { createLogger } from '../../infrastructure/logger.ts';
import { startProjections } from '../../projectors/runner.ts';
import { projections } from '../../projectors/index.ts';
import { READ_MODEL_PROJECTIONS } from '../../contracts/read-models.ts';
import { openAccount } from '../../command-api/handlers/accounts.ts';
import { allInOneHttpApp } from '../../runtime/all-in-one.ts';
import { onShutdown } from '../../infrastructure/shutdown.ts';

/**
 * Item 2's request-path figure: the all-in-one's own HTTP app (every hook, the real vote route and
 * decider, write positions, metrics) whose appends cost nothing — they are answered at once and
 * stored nowhere — with nothing in the background (no events reach the projections, no bus, no
 * processors, no dispatcher). What it answers per second is the most the service's request path
 * can reach on this machine whatever the rest costs; with one raw append added (the ceiling line's
 * second step) it bounds what any background design could give.
 *
 * Started by the bench as a service (PORT, HOST, DATA_DIR and the adapter variables); the API key
 * of the one account it opens (through the real event store, so authentication finds it) is
 * written to DATA_DIR/request-path-api-key.
 */
const config = loadConfig();
const adapters = await openAdapters(config);
const ops = await startProcessOps({ name: 'request-path', ops: loadOpsConfig(), adapters, readyCheckpoints: READ_MODEL_PROJECTIONS });
const logger = createLogger('request-path', config.logLevel);
const projectors = await startProjections(adapters.eventStore, adapters.readStore, projections, logger);
const account = await openAccount(adapters.eventStore, { name: 'bench request path' }, { accountId: null, requestId: null, actor: 'system:bench' });
await adapters.readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, await adapters.eventStore.headPosition(), 60_000);

/** Appends answered at once, as if the log had taken them (positions counted from far above the real log's). */
let position = 1n << 40n;
const freeAppend = (count: number, expected: ExpectedRevision | undefined): AppendResult => {
  const before = typeof expected === 'bigint' ? expected : -1n;
  position += BigInt(count);
  return { nextRevision: before + BigInt(count), position };
};
const freeAppends: EventStore = {
  ...adapters.eventStore,
  append: async (_stream, events, options) => freeAppend(events.length, options?.expectedRevision),
  appendAll: async (appends) => appends.map((append) => freeAppend(append.events.length, append.expectedRevision)),
};

const app = await allInOneHttpApp({
  config,
  adapters,
  ops,
  metricsToken: undefined,
  logger: undefined,
  eventStore: instrumentEventStore(freeAppends, ops.metrics),
});
writeFileSync(join(config.dataDir, 'request-path-api-key'), account.api_key);
await app.listen({ port: config.port, host: config.host });

onShutdown(async () => {
  await app.close();
  await projectors.stop();
  await ops.stop();
  await adapters.close();
});

import type { Adapters } from './adapters.ts';
import type { EventStore } from './event-store/port.ts';
import { headCache, type HeadCache } from './event-store/head-cache.ts';
import { createMetrics, instrumentEventStore, type Metrics } from './metrics/metrics.ts';
import { checkpointLags } from './metrics/lag.ts';
import { startMetricsServer, type Readiness } from './metrics/server.ts';
import type { OpsConfig } from './ops-config.ts';
import { mongoCommandCounts, monitorsMongoCommands } from './mongo-commands.ts';
import { mediaBuild } from './media/ffmpeg-binaries.ts';
import { mediaSlots } from './media/bounded-run.ts';
import { getHeapStatistics } from 'node:v8';
import { heapLimitMb, heapPolicyWarning } from './heap-policy.ts';

export type ProcessOps = {
  metrics: Metrics;
  head: HeadCache;
  /** The adapters' event store with appends timed, conflicts counted and the head cache told. */
  eventStore: EventStore;
  readiness: Readiness;
  /** The separate metrics listener's URL when METRICS_PORT is set. */
  metricsUrl: string | null;
  stop: () => Promise<void>;
};

const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'abandoned'];
const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'];

/**
 * What every process sets up for operations: its metrics registry, the cached head of the log,
 * readiness, and (METRICS_PORT) the separate metrics listener.
 * - `readyCheckpoints`: checkpoints /ready requires within READY_MAX_LAG_MS of the head (the query
 *   side and projectors: the read models);
 * - `lagCheckpoints`: checkpoints whose lag (events, seconds) the metrics report (projectors, relay);
 * - `readModelGauges`: webhook deliveries by outcome and endpoints by status, counted in the read
 *   models at scrape time (the process that runs the projections).
 * Bus consumer lag is reported for the groups this process consumes (processors' queue depth).
 * - `logger`: told at start when the process's V8 heap limit is not the heap policy's for
 *   `uploadMemoryBudgetMb` (UPLOAD_MEMORY_BUDGET_MB; infrastructure/heap-policy.ts).
 */
export const startProcessOps = async (options: {
  name: string;
  ops: OpsConfig;
  adapters: Pick<Adapters, 'eventStore' | 'readStore' | 'bus' | 'kinds'>;
  readyCheckpoints?: readonly string[];
  lagCheckpoints?: readonly string[];
  readModelGauges?: { webhooks: string; webhookDeliveries: string };
  logger?: { warn: (message: string) => void };
  uploadMemoryBudgetMb?: number;
}): Promise<ProcessOps> => {
  const { adapters } = options;
  const heapWarning = heapPolicyWarning(heapLimitMb(), options.uploadMemoryBudgetMb);
  if (heapWarning) options.logger?.warn(heapWarning);
  const metrics = createMetrics(options.name);
  metrics.gauge('nodejs_heap_size_limit_bytes', "V8's heap size limit (old and young generations): the heap policy the process was started with (infrastructure/heap-policy.ts)", [], async (set) =>
    set({}, getHeapStatistics().heap_size_limit),
  );
  const head = await headCache(adapters.eventStore);
  const eventStore = instrumentEventStore(adapters.eventStore, metrics, head.note);

  metrics.gauge('eventstore_head_position', 'Position of the last event in the log (cached, refreshed every second)', [], async (set) => set({}, Number(head.position)));
  metrics.gauge('media_ffmpeg_info', 'The ffmpeg and ffprobe builds pet videos are read with (1): version, source (system, env, npm-fallback) and path', ['binary', 'version', 'source', 'path'], async (set) => {
    const build = await mediaBuild();
    for (const binary of ['ffmpeg', 'ffprobe'] as const) set({ binary, version: build[binary].version, source: build[binary].source, path: build[binary].path }, 1);
  });
  metrics.gauge('media_jobs', 'ffmpeg/ffprobe children of this process: running, and waiting for one of the MEDIA_CONCURRENCY slots', ['state'], async (set) => {
    set({ state: 'running' }, mediaSlots.running());
    set({ state: 'waiting' }, mediaSlots.waiting());
  });
  const lagNames = options.lagCheckpoints ?? [];
  if (lagNames.length > 0) {
    // One log read serves both gauges of a scrape.
    let last: { at: number; value: Promise<Awaited<ReturnType<typeof checkpointLags>>> } | null = null;
    const lags = () => {
      if (!last || Date.now() - last.at > 1_000) last = { at: Date.now(), value: checkpointLags(adapters.eventStore, adapters.readStore, lagNames, head.position) };
      return last.value;
    };
    metrics.gauge('projection_lag_events', 'Events between a checkpoint (projection, relay) and the head of the log', ['projection'], async (set) => {
      for (const lag of await lags()) set({ projection: lag.name }, lag.lagEvents);
    });
    metrics.gauge('projection_lag_seconds', 'Age of the oldest event a checkpoint (projection, relay) has not handled yet', ['projection'], async (set) => {
      for (const lag of await lags()) set({ projection: lag.name }, lag.lagSeconds);
    });
  }
  if (adapters.bus.lag) {
    const lag = adapters.bus.lag.bind(adapters.bus);
    metrics.gauge('bus_consumer_lag_messages', 'Messages a consumer group of this process has not handled yet', ['group'], async (set) => {
      for (const entry of await lag()) set({ group: entry.group }, entry.messages);
    });
    metrics.gauge('processor_queue_depth', 'Messages waiting for a processor of this process', ['processor'], async (set) => {
      for (const entry of await lag()) if (entry.group.startsWith('processor.')) set({ processor: entry.group.slice('processor.'.length) }, entry.messages);
    });
  }
  if (adapters.bus.offsetWriteFailures) {
    const failures = adapters.bus.offsetWriteFailures.bind(adapters.bus);
    metrics.gauge('bus_offset_write_failures', 'Consumer offsets the bus could not store so far, by group (each tried again with the next; messages since then would come again after a restart)', ['group'], async (set) => {
      for (const entry of failures()) set({ group: entry.group }, entry.failures);
    });
  }
  if (monitorsMongoCommands()) {
    metrics.gauge('mongo_commands', 'Commands sent to MongoDB so far (round trips), by command and collection (MONGO_MONITOR_COMMANDS=true)', ['command', 'collection'], async (set) => {
      for (const entry of mongoCommandCounts.values()) set({ command: entry.command, collection: entry.collection }, entry.count);
    });
  }
  const gauges = options.readModelGauges;
  if (gauges) {
    metrics.gauge('webhook_deliveries', 'Webhook deliveries by outcome (read model)', ['status'], async (set) => {
      const deliveries = adapters.readStore.collection(gauges.webhookDeliveries);
      for (const status of WEBHOOK_DELIVERY_STATUSES) set({ status }, await deliveries.count({ status }));
    });
    metrics.gauge('webhook_endpoints', 'Webhook endpoints by status; disabled ones were turned off after repeated failures (read model)', ['status'], async (set) => {
      const endpoints = adapters.readStore.collection(gauges.webhooks);
      for (const status of WEBHOOK_ENDPOINT_STATUSES) set({ status }, await endpoints.count({ status }));
    });
  }

  const readyNames = options.readyCheckpoints ?? [];
  const readiness: Readiness = async () => {
    const reachable = head.refreshedAt !== null && Date.now() - head.refreshedAt < 5_000;
    const target = head.positionAgo(options.ops.readyMaxLagMs);
    const caughtUp = readyNames.length === 0 || (await adapters.readStore.waitForCheckpoints(readyNames, target, 0));
    return {
      ready: reachable && caughtUp,
      details: {
        head: head.position.toString(),
        event_store: reachable ? 'reachable' : 'unreachable',
        ...(readyNames.length > 0 ? { projections: caughtUp ? 'within bound' : 'behind' } : {}),
        adapters: adapters.kinds,
      },
    };
  };

  const server =
    options.ops.metricsPort === undefined
      ? null
      : await startMetricsServer({ metrics, port: options.ops.metricsPort, host: options.ops.metricsHost, token: options.ops.metricsToken, readiness });
  return {
    metrics,
    head,
    eventStore,
    readiness,
    metricsUrl: server?.url ?? null,
    stop: async () => {
      head.stop();
      await server?.close();
    },
  };
};

import client from 'prom-client';
import type { EventStore } from '../event-store/port.ts';
import { isWrongExpectedRevision } from '../event-store/port.ts';

/**
 * The Prometheus metrics of one process (prom-client), in a registry of its own so several
 * services in one test process do not collide. Every process has the default Node metrics
 * (event-loop delay, heap, GC, CPU) and the families below; each registers the sources it has
 * (HTTP requests, appends, projections, consumers) and gauges read at scrape time.
 */
export type Metrics = {
  registry: client.Registry;
  httpRequests: client.Histogram<'method' | 'route' | 'status_code'>;
  appendDuration: client.Histogram<'outcome'>;
  appendConflicts: client.Counter<never>;
  processorFailures: client.Counter<'processor'>;
  /** A gauge whose value is computed at each scrape. */
  gauge: <L extends string>(name: string, help: string, labelNames: L[], collect: (set: (labels: Partial<Record<L, string>>, value: number) => void) => Promise<void>) => void;
};

export const createMetrics = (processName: string): Metrics => {
  const registry = new client.Registry();
  registry.setDefaultLabels({ process: processName });
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const httpRequests = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route template and status (the _count is the request rate)',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const appendDuration = new client.Histogram({
    name: 'eventstore_append_duration_seconds',
    help: 'Event store appends by outcome (ok, conflict, error)',
    labelNames: ['outcome'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [registry],
  });
  const appendConflicts = new client.Counter({
    name: 'eventstore_append_conflicts_total',
    help: 'Appends refused for a wrong expected revision (optimistic concurrency conflicts)',
    registers: [registry],
  });
  const processorFailures = new client.Counter({
    name: 'processor_failures_total',
    help: 'Processor (and dispatcher) handler failures; the message is retried',
    labelNames: ['processor'] as const,
    registers: [registry],
  });
  const gauge: Metrics['gauge'] = (name, help, labelNames, collect) => {
    new client.Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        await collect((labels, value) => this.set(labels as never, value));
      },
    });
  };
  return { registry, httpRequests, appendDuration, appendConflicts, processorFailures, gauge };
};

/** The event store with its appends timed and conflicts counted; `onAppended` sees each new position. */
export const instrumentEventStore = <S extends EventStore>(eventStore: S, metrics: Metrics, onAppended?: (position: bigint) => void): S => {
  const timed = async <T>(write: () => Promise<T>, lastPosition: (result: T) => bigint | undefined): Promise<T> => {
    const end = metrics.appendDuration.startTimer();
    try {
      const result = await write();
      end({ outcome: 'ok' });
      const position = lastPosition(result);
      if (position !== undefined) onAppended?.(position);
      return result;
    } catch (error) {
      if (isWrongExpectedRevision(error)) {
        end({ outcome: 'conflict' });
        metrics.appendConflicts.inc();
      } else {
        end({ outcome: 'error' });
      }
      throw error;
    }
  };
  const append: EventStore['append'] = (streamName, events, options) => timed(() => eventStore.append(streamName, events, options), (result) => result.position);
  const appendAll: EventStore['appendAll'] = (appends) => timed(() => eventStore.appendAll(appends), (results) => results.at(-1)?.position);
  return new Proxy(eventStore, {
    get: (target, key) => {
      if (key === 'append') return append;
      if (key === 'appendAll') return appendAll;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

import type { Operation } from '../contracts/ops.ts';
import type { Config } from '../infrastructure/config.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { randomId } from '../infrastructure/ids.ts';
import type { Projection } from '../projectors/projection.ts';
import { verifyInScratch } from './verify.ts';

const KEEP = 20;
const SAMPLE = 20;

/**
 * Background operations of this process (verified replays), kept in memory: the last 20 with
 * their progress and results. A verify runs projection after projection, each in its own scratch
 * store; the live read models are only read, so the service keeps serving meanwhile.
 */
export const operationsRegistry = (deps: {
  config: Pick<Config, 'mongoUrl'>;
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  onError?: (error: unknown) => void;
}) => {
  const operations: Operation[] = [];

  const startVerify = (name: string): Operation => {
    const selected = name === 'all' ? [...deps.projections] : deps.projections.filter((projection) => projection.name === name);
    const operation: Operation = {
      id: randomId(9).replace(/[^A-Za-z0-9]/g, 'x'),
      kind: 'verify',
      projection: name,
      status: 'running',
      started_at: new Date().toISOString(),
      finished_at: null,
      progress: { percent: 0, current: null, done: 0, total: selected.length },
      results: [],
      error: null,
    };
    operations.unshift(operation);
    operations.splice(KEEP);
    void (async () => {
      try {
        for (const [index, projection] of selected.entries()) {
          operation.progress.current = projection.name;
          const report = await verifyInScratch(deps.config, deps.eventStore, deps.readStore, projection, (position, target) => {
            const share = target > 0n ? Number((position * 1000n) / target) / 1000 : 1;
            operation.progress.percent = Math.min(100, Math.round(((index + Math.min(1, share)) / selected.length) * 1000) / 10);
          });
          operation.results.push({
            projection: report.projection,
            identical: report.identical,
            position: report.position.toString(),
            collections: report.collections.map((entry) => ({
              name: entry.name,
              live: entry.live,
              rebuilt: entry.rebuilt,
              differing_count: entry.differing.length,
              differing: entry.differing.slice(0, SAMPLE),
            })),
          });
          operation.progress.done = index + 1;
        }
        operation.status = operation.results.every((result) => result.identical) ? 'passed' : 'failed';
      } catch (error) {
        deps.onError?.(error);
        operation.status = 'error';
        operation.error = error instanceof Error ? error.message : String(error);
      } finally {
        operation.progress.current = null;
        if (operation.status !== 'error') operation.progress.percent = 100;
        operation.finished_at = new Date().toISOString();
      }
    })();
    return operation;
  };

  return {
    startVerify,
    get: (id: string) => operations.find((operation) => operation.id === id),
    list: () => [...operations],
    /** Resolves once no operation is running (shutdown waits for them, bounded by its timeout). */
    idle: async () => {
      while (operations.some((operation) => operation.status === 'running')) await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
};

import type { Operation } from '../contracts/ops.ts';
import type { GroupLag } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/**
 * What the operations routes need, given by the wiring (runtime/): the registries of projections
 * and consumer groups (so new ones appear without touching these routes) and the background
 * operations, which run projector code the query API does not import.
 */
export type OpsDeps = {
  readStore: ReadStore;
  eventStore: Pick<EventStore, 'readAll'>;
  /** The cached head of the log. */
  head: () => bigint;
  adapters: Record<string, string>;
  /** Checkpoints shown with their lag: every projection, then the relay. */
  checkpoints: readonly string[];
  /** Names a verify may be started for. */
  projections: readonly string[];
  consumerGroups: readonly string[];
  busLag?: () => Promise<GroupLag[]>;
  operations: {
    startVerify: (projection: string) => Operation;
    get: (id: string) => Operation | undefined;
    list: () => Operation[];
  };
};

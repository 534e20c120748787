import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/**
 * A projection turns events into read-model documents. `apply` must be idempotent: it writes
 * with the event's position as guard (see the read-store port), so applying an event twice, or
 * replaying a window of events, changes nothing.
 */
export type Projection = {
  /** Also the checkpoint name. */
  name: string;
  /** Collections this projection owns (dropped and rebuilt together). */
  collections: string[];
  /** Stream prefixes it reads; others only advance its checkpoint. */
  streamPrefixes: string[];
  /** Indexes and other one-off preparation. */
  setup?: (store: ReadStore) => Promise<void>;
  /**
   * Optional, before `apply` runs on a batch's events: reads in one go (Collection.getMany) the
   * documents the batch's events will look up one by one, so that the unit of work answers those
   * lookups from memory. Changes nothing by itself.
   */
  prefetch?: (events: readonly RecordedEvent[], store: ReadStore) => Promise<void>;
  apply: (event: RecordedEvent, store: ReadStore) => Promise<void>;
};

export const defineProjection = (projection: Projection): Projection => projection;

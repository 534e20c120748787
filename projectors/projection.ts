import type { Event } from '../domain/decider.ts';
import type { StreamEvents } from '../domain/stream-events.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { isFromAny, type Recorded, type RecordedOf } from '../infrastructure/event-store/recorded.ts';
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

/**
 * What a projection file declares: the aggregates whose streams it reads (`streams`, their event
 * decoders from domain/), and handlers that receive those aggregates' events, typed. An event of
 * those streams whose type none of them writes is not handed on (its position still advances the
 * checkpoint).
 */
export type ProjectionDefinition<S extends readonly StreamEvents<Event>[]> = Omit<Projection, 'streamPrefixes' | 'prefetch' | 'apply'> & {
  streams: S;
  prefetch?: (events: readonly RecordedOf<S>[], store: ReadStore) => Promise<void>;
  apply: (event: RecordedOf<S>, store: ReadStore) => Promise<void>;
};

export const defineProjection = <const S extends readonly StreamEvents<Event>[]>({ streams, prefetch, apply, ...rest }: ProjectionDefinition<S>): Projection => {
  const decodes = (event: Recorded<Event>): event is RecordedOf<S> => isFromAny(streams, event);
  return {
    ...rest,
    streamPrefixes: streams.map((events) => events.prefix),
    ...(prefetch ? { prefetch: (events: readonly Recorded<Event>[], store: ReadStore) => prefetch(events.filter(decodes), store) } : {}),
    async apply(event, store) {
      if (decodes(event)) await apply(event, store);
    },
  };
};

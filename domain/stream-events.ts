import type { Event } from './decider.ts';

/**
 * The events one aggregate's streams carry (`vote-123` carries `VoteEvent`), as they are told apart
 * when read back: a projection, processor or the webhook dispatcher names the aggregates it reads
 * and receives their event union, decoded once where events come in (projectors/projection.ts,
 * processors/processor.ts, infrastructure/event-store/recorded.ts), so no handler casts.
 *
 * The type tag decides: an event whose type the aggregate does not write is not one of its events.
 * Its data is trusted to be the shape the type names, the aggregate's decider being the only writer
 * of its streams.
 */
export type StreamEvents<E extends Event> = {
  /** The stream category: `vote` for `vote-123`, also the bus topic's suffix (`events.vote`). */
  readonly category: string;
  /** `vote-`: what a subscription filters on. */
  readonly prefix: string;
  /** Whether `type` is the type of one of the aggregate's events. */
  readonly isType: (type: string) => type is E['type'];
};

/** The event union a StreamEvents describes. */
export type EventsOf<S> = S extends StreamEvents<infer E> ? E : never;

/** The events of a category told apart by a predicate on the type (for families of types: `BreedPublished`, …). */
export const streamEventsWhere = <E extends Event>(category: string, isType: (type: string) => type is E['type']): StreamEvents<E> => ({
  category,
  prefix: `${category}-`,
  isType,
});

/**
 * The events of a category from a table of every type the aggregate writes: the compiler checks
 * the table against the union both ways (a type missing or one too many does not compile).
 */
export const streamEvents = <E extends Event>(category: string, types: { readonly [T in E['type']]: true }): StreamEvents<E> => {
  const known = new Set<string>(Object.keys(types));
  return streamEventsWhere<E>(category, (type): type is E['type'] => known.has(type));
};

/** The same streams' events of the given types only (a reaction to one event of an aggregate). */
export const onlyTypes = <E extends Event, T extends E['type']>(events: StreamEvents<E>, ...types: T[]): StreamEvents<Extract<E, { type: T }>> => {
  const chosen = new Set<string>(types);
  return streamEventsWhere(events.category, (type): type is Extract<E, { type: T }>['type'] => chosen.has(type));
};

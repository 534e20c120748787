import type { Event } from '../../domain/decider.ts';
import type { EventsOf, StreamEvents } from '../../domain/stream-events.ts';
import type { RecordedEvent } from './port.ts';

/**
 * A recorded event known to be one of the events E (one member of the union per event type, so a
 * `switch (event.type)` narrows its data); stream, revision, position and metadata as recorded.
 */
export type Recorded<E extends Event> = E extends Event ? Omit<RecordedEvent, 'type' | 'data'> & E : never;

/** The recorded events of any of these aggregates' streams. */
export type RecordedOf<S extends readonly StreamEvents<Event>[]> = Recorded<EventsOf<S[number]>>;

/** Whether a recorded event was read from one of `events`' streams and is one of its events. */
export const isFrom = <E extends Event>(events: StreamEvents<E>, event: Recorded<Event>): event is Recorded<E> =>
  event.streamName.startsWith(events.prefix) && events.isType(event.type);

/** Whether a recorded event is one of the events of any of `streams` (read from its stream). */
export const isFromAny = <const S extends readonly StreamEvents<Event>[]>(streams: S, event: Recorded<Event>): event is RecordedOf<S> =>
  streams.some((events) => isFrom(events, event));

/** The events of `stream` that `events` (read from one of its streams) are, in order; others are left out. */
export const decodeAll = <E extends Event>(stream: StreamEvents<E>, events: readonly Recorded<Event>[]): Recorded<E>[] =>
  events.filter((event): event is Recorded<E> => isFrom(stream, event));

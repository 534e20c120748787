import type { Event } from '../decider.ts';
import { streamEventsWhere, type StreamEvents } from '../stream-events.ts';

/**
 * Every authored reference record (a breed, a fact, a health tip, a species colour, a category,
 * a country, a law) is an aggregate of its own, `<kind>-<id>`, built by the import: the first
 * import publishes it with its full content, a changed record is revised (again with the full
 * content), and a record that left the dataset is withdrawn. Each event carries the content
 * hash, so the decider can answer "unchanged → nothing to append" and a replay of the log shows
 * how the data came to be.
 */
export const REFERENCE_KINDS = {
  breed: 'Breed',
  fact: 'Fact',
  healthtip: 'HealthTip',
  colour: 'Colour',
  category: 'Category',
  country: 'Country',
  legislation: 'Legislation',
} as const;
export type ReferenceKind = keyof typeof REFERENCE_KINDS;
export type ReferenceName = (typeof REFERENCE_KINDS)[ReferenceKind];
export const REFERENCE_KIND_LIST = Object.keys(REFERENCE_KINDS) as ReferenceKind[];

/** Stream of one record: `breed-abys`, `fact-fact-cat-001`, `country-GB`, `legislation-12`. */
export const referenceStream = (kind: ReferenceKind, id: string): string => `${kind}-${id}`;

export type ReferenceRecordContent = Record<string, unknown>;

export type ReferencePublishedData = { id: string; content_hash: string; record: ReferenceRecordContent; published_at: string };
export type ReferenceRevisedData = {
  id: string;
  content_hash: string;
  previous_hash: string;
  record: ReferenceRecordContent;
  revised_at: string;
};
export type ReferenceWithdrawnData = { id: string; content_hash: string; withdrawn_at: string };

export type ReferencePublished<N extends string = ReferenceName> = Event<`${N}Published`, ReferencePublishedData>;
export type ReferenceRevised<N extends string = ReferenceName> = Event<`${N}Revised`, ReferenceRevisedData>;
export type ReferenceWithdrawn<N extends string = ReferenceName> = Event<`${N}Withdrawn`, ReferenceWithdrawnData>;
export type ReferenceEvent<N extends string = ReferenceName> = ReferencePublished<N> | ReferenceRevised<N> | ReferenceWithdrawn<N>;

export type ReferenceChange = 'published' | 'revised' | 'withdrawn';

/** What an event did to its record, whatever the kind (`BreedRevised` → revised). */
export const changeOf = (eventType: string): ReferenceChange | null => {
  if (eventType.endsWith('Published')) return 'published';
  if (eventType.endsWith('Revised')) return 'revised';
  if (eventType.endsWith('Withdrawn')) return 'withdrawn';
  return null;
};

export type ReferenceState = { status: 'none' } | { status: 'published' | 'withdrawn'; contentHash: string };

export const initialReferenceState = (): ReferenceState => ({ status: 'none' });

export const evolveReference = (state: ReferenceState, event: ReferenceEvent<string>): ReferenceState => {
  switch (changeOf(event.type)) {
    case 'published':
    case 'revised':
      return { status: 'published', contentHash: event.data.content_hash };
    case 'withdrawn':
      return state.status === 'none' ? state : { status: 'withdrawn', contentHash: state.contentHash };
    default:
      return state;
  }
};

/** The events of one kind's record streams (`fact-…`: FactPublished, FactRevised, FactWithdrawn), told apart where they are read back. */
export const referenceEvents = <K extends ReferenceKind>(kind: K): StreamEvents<ReferenceEvent<(typeof REFERENCE_KINDS)[K]>> => {
  const name = REFERENCE_KINDS[kind];
  const types = new Set<string>([`${name}Published`, `${name}Revised`, `${name}Withdrawn`]);
  return streamEventsWhere(kind, (type): type is ReferenceEvent<(typeof REFERENCE_KINDS)[K]>['type'] => types.has(type));
};

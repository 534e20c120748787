import { changeOf, referenceEvents, type ReferenceKind } from '../domain/reference-data/record.ts';
import type { Doc } from '../infrastructure/read-store/port.ts';
import { defineProjection, type Projection } from './projection.ts';

/**
 * The projection of a reference kind whose records are served one document each (facts, health
 * tips, categories): a published or revised record becomes the document `docOf` makes of it, a
 * withdrawn one is deleted. `indexes`: the fields the query side filters on.
 */
export const referenceRecordProjection = <R, T extends Doc>(definition: {
  name: string;
  kind: ReferenceKind;
  collection: string;
  indexes?: readonly string[];
  docOf: (record: R) => T;
}): Projection =>
  defineProjection({
    name: definition.name,
    collections: [definition.collection],
    streams: [referenceEvents(definition.kind)],
    async setup(store) {
      for (const field of definition.indexes ?? []) await store.collection(definition.collection).createIndex(field);
    },
    async apply(event, store) {
      const docs = store.collection<T>(definition.collection);
      switch (changeOf(event.type)) {
        case 'published':
        case 'revised':
          await docs.upsert(definition.docOf((event.data as { record: unknown }).record as R), event.position);
          return;
        case 'withdrawn':
          await docs.delete(event.data.id, event.position);
          return;
      }
    },
  });

import { REFERENCE_COLLECTIONS, type FactDoc } from '../contracts/reference-read-models.ts';
import { changeOf, type ReferenceEvent } from '../domain/reference-data/record.ts';
import type { Fact } from '../reference-data/schemas.ts';
import { defineProjection } from './projection.ts';

export const factsProjection = defineProjection({
  name: 'facts',
  collections: [REFERENCE_COLLECTIONS.facts],
  streamPrefixes: ['fact-'],
  async setup(store) {
    await store.collection(REFERENCE_COLLECTIONS.facts).createIndex('breed_id');
  },
  async apply(recorded, store) {
    const event = recorded as unknown as ReferenceEvent<'Fact'>;
    const facts = store.collection<FactDoc>(REFERENCE_COLLECTIONS.facts);
    switch (changeOf(event.type)) {
      case 'published':
      case 'revised': {
        const fact = (event.data as { record: unknown }).record as Fact;
        await facts.upsert(
          {
            _id: fact.id,
            id: fact.id,
            title: fact.title,
            fact: fact.fact,
            slug: fact.slug,
            category: fact.category,
            category_lc: fact.category.toLowerCase(),
            species_id: fact.species_id,
            breed_id: fact.breed_id,
            sources: fact.sources,
            translations: fact.translations ?? {},
          },
          recorded.position,
        );
        return;
      }
      case 'withdrawn':
        await facts.delete(event.data.id, recorded.position);
        return;
    }
  },
});

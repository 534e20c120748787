import { REFERENCE_COLLECTIONS, type FactDoc } from '../contracts/reference-read-models.ts';
import type { Fact } from '../reference-data/schemas.ts';
import { referenceRecordProjection } from './reference-records.ts';

export const factsProjection = referenceRecordProjection({
  name: 'facts',
  kind: 'fact',
  collection: REFERENCE_COLLECTIONS.facts,
  indexes: ['breed_id'],
  docOf: (fact: Fact): FactDoc => ({
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
  }),
});

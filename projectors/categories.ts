import { REFERENCE_COLLECTIONS, type CategoryDoc } from '../contracts/reference-read-models.ts';
import type { Category } from '../reference-data/schemas.ts';
import { referenceRecordProjection } from './reference-records.ts';

export const categoriesProjection = referenceRecordProjection({
  name: 'categories',
  kind: 'category',
  collection: REFERENCE_COLLECTIONS.categories,
  docOf: (category: Category): CategoryDoc => ({ _id: category.id, id: category.id, name: category.name, species_id: category.species_id, num: Number(category.id) }),
});

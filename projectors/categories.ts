import { REFERENCE_COLLECTIONS, type CategoryDoc } from '../contracts/reference-read-models.ts';
import { changeOf, type ReferenceEvent } from '../domain/reference-data/record.ts';
import type { Category } from '../reference-data/schemas.ts';
import { defineProjection } from './projection.ts';

export const categoriesProjection = defineProjection({
  name: 'categories',
  collections: [REFERENCE_COLLECTIONS.categories],
  streamPrefixes: ['category-'],
  async apply(recorded, store) {
    const event = recorded as unknown as ReferenceEvent<'Category'>;
    const categories = store.collection<CategoryDoc>(REFERENCE_COLLECTIONS.categories);
    switch (changeOf(event.type)) {
      case 'published':
      case 'revised': {
        const category = (event.data as { record: unknown }).record as Category;
        await categories.upsert(
          { _id: category.id, id: category.id, name: category.name, species_id: category.species_id, num: Number(category.id) },
          recorded.position,
        );
        return;
      }
      case 'withdrawn':
        await categories.delete(event.data.id, recorded.position);
        return;
    }
  },
});

import { REFERENCE_COLLECTIONS, type HealthTipDoc } from '../contracts/reference-read-models.ts';
import { changeOf, type ReferenceEvent } from '../domain/reference-data/record.ts';
import type { HealthTip } from '../reference-data/schemas.ts';
import { defineProjection } from './projection.ts';

export const healthTipsProjection = defineProjection({
  name: 'health-tips',
  collections: [REFERENCE_COLLECTIONS.healthTips],
  streamPrefixes: ['healthtip-'],
  async setup(store) {
    await store.collection(REFERENCE_COLLECTIONS.healthTips).createIndex('breed_id');
  },
  async apply(recorded, store) {
    const event = recorded as unknown as ReferenceEvent<'HealthTip'>;
    const tips = store.collection<HealthTipDoc>(REFERENCE_COLLECTIONS.healthTips);
    switch (changeOf(event.type)) {
      case 'published':
      case 'revised': {
        const tip = (event.data as { record: unknown }).record as HealthTip;
        await tips.upsert(
          {
            _id: tip.id,
            id: tip.id,
            title: tip.title,
            category: tip.category,
            description: tip.description,
            species_id: tip.species_id,
            breed_id: tip.breed_id,
            sources: tip.sources,
            translations: tip.translations,
          },
          recorded.position,
        );
        return;
      }
      case 'withdrawn':
        await tips.delete(event.data.id, recorded.position);
        return;
    }
  },
});

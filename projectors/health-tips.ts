import { REFERENCE_COLLECTIONS, type HealthTipDoc } from '../contracts/reference-read-models.ts';
import type { HealthTip } from '../reference-data/schemas.ts';
import { referenceRecordProjection } from './reference-records.ts';

export const healthTipsProjection = referenceRecordProjection({
  name: 'health-tips',
  kind: 'healthtip',
  collection: REFERENCE_COLLECTIONS.healthTips,
  indexes: ['breed_id'],
  docOf: (tip: HealthTip): HealthTipDoc => ({
    _id: tip.id,
    id: tip.id,
    title: tip.title,
    category: tip.category,
    description: tip.description,
    species_id: tip.species_id,
    breed_id: tip.breed_id,
    sources: tip.sources,
    translations: tip.translations,
  }),
});

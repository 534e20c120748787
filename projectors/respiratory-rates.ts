import { Collections, type RespiratoryRateDoc } from '../contracts/read-models.ts';
import { respiratoryRateEvents } from '../domain/pet-analyses/respiratory-rate.ts';
import { defineProjection } from './projection.ts';

/** Respiratory-rate readings, one document per result stream, following its status. */
export const respiratoryRatesProjection = defineProjection({
  name: 'respiratory-rates',
  collections: [Collections.respiratoryRates],
  streams: [respiratoryRateEvents],
  async setup(store) {
    await store.collection(Collections.respiratoryRates).createIndex('pet_id');
  },
  async apply(event, store) {
    const results = store.collection<RespiratoryRateDoc>(Collections.respiratoryRates);
    if (event.type === 'RespiratoryRateRequested') {
      const { data } = event;
      await results.upsert(
        {
          _id: data.result_id,
          id: data.result_id,
          pet_id: data.pet_id,
          account_id: data.account_id,
          status: 'pending',
          breaths_per_minute: null,
          breed_baseline: null,
          within_baseline: null,
          video_id: data.video_id,
          reasons: null,
          failure_reason: null,
          requested_at: data.requested_at,
          generated_at: null,
        },
        event.position,
      );
      return;
    }
    const doc = await results.get(event.data.result_id);
    if (!doc) return;
    switch (event.type) {
      case 'RespiratoryRateProcessing':
        await results.upsert({ ...doc, status: 'processing' }, event.position);
        return;
      case 'RespiratoryRateCompleted':
        await results.upsert(
          {
            ...doc,
            status: 'completed',
            breaths_per_minute: event.data.breaths_per_minute,
            breed_baseline: event.data.breed_baseline,
            within_baseline: event.data.within_baseline,
            reasons: event.data.reasons,
            generated_at: event.data.generated_at,
          },
          event.position,
        );
        return;
      case 'RespiratoryRateFailed':
        await results.upsert({ ...doc, status: 'failed', failure_reason: event.data.reason, generated_at: event.data.failed_at }, event.position);
        return;
    }
  },
});

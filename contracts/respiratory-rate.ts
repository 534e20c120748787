import { Type, type Static } from '@sinclair/typebox';
import { PetId } from './pets.ts';

/** Respiratory-rate result (early access): the spec's fields plus id, pet, reasons and the failure reason. */
export const RespiratoryRateResult = Type.Object(
  {
    id: Type.String(),
    pet_id: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
    breaths_per_minute: Type.Union([Type.Number(), Type.Null()]),
    breed_baseline: Type.Union([Type.Object({ low: Type.Number(), high: Type.Number() }), Type.Null()], {
      description: "resting (sleeping) breaths per minute for the pet's species; null when the species is unknown",
    }),
    within_baseline: Type.Union([Type.Boolean(), Type.Null()]),
    video_id: Type.String({ description: 'the video analysed (the latest one of the pet when requested)' }),
    reasons: Type.Union([Type.String(), Type.Null()], { description: 'how the rate was found' }),
    failure_reason: Type.Union([Type.String(), Type.Null()], { description: 'why no rate could be read (status failed)' }),
    requested_at: Type.String({ format: 'date-time' }),
    generated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: 'A resting respiratory-rate reading from a video (early access; field names may change). A data point, not a diagnosis.' },
);
export type RespiratoryRateResult = Static<typeof RespiratoryRateResult>;

export const RespiratoryRateParams = Type.Object({ petId: PetId, resultId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

/** The resource from a read-model document or a completed event's data (same field names). */
export const respiratoryRateResource = (doc: {
  id?: string;
  result_id?: string;
  pet_id: string;
  status?: RespiratoryRateResult['status'];
  breaths_per_minute: number | null;
  breed_baseline: { low: number; high: number } | null;
  within_baseline: boolean | null;
  video_id: string;
  reasons: string | null;
  failure_reason?: string | null;
  requested_at: string;
  generated_at: string | null;
}): RespiratoryRateResult => ({
  id: (doc.id ?? doc.result_id) as string,
  pet_id: doc.pet_id,
  status: doc.status ?? 'completed',
  breaths_per_minute: doc.breaths_per_minute,
  breed_baseline: doc.breed_baseline,
  within_baseline: doc.within_baseline,
  video_id: doc.video_id,
  reasons: doc.reasons,
  failure_reason: doc.failure_reason ?? null,
  requested_at: doc.requested_at,
  generated_at: doc.generated_at,
});

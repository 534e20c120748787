import type { PetMedia as PetMediaRecord } from '../domain/pets/pet.ts';

/**
 * Read models of pets: one document per pet (profile + every analysis field of the spec, null
 * until that analysis has run) and one per media record. The analyses work fills the analysis
 * fields from its events; the pets projection only ever sets them to null at registration.
 */
export const PET_COLLECTIONS = { pets: 'pets', petMedia: 'pet_media' } as const;

export type PetAnalysisDoc = {
  body_condition_score_reasons: string | null;
  body_condition_score_timestamp: string | null;
  estimated_age_months: number | null;
  estimated_age_reasons: string | null;
  estimated_age_timestamp: string | null;
  genealogy_result: Record<string, unknown> | null;
  genealogy_timestamp: string | null;
  muscle_wasting_risk: boolean | null;
  muscle_condition_reasons: string | null;
  muscle_condition_timestamp: string | null;
  estimated_weight_kg: number | null;
  estimated_size_classification: string | null;
  estimated_weight_reasons: string | null;
  estimated_weight_timestamp: string | null;
};

export const emptyPetAnalysis = (): PetAnalysisDoc => ({
  body_condition_score_reasons: null,
  body_condition_score_timestamp: null,
  estimated_age_months: null,
  estimated_age_reasons: null,
  estimated_age_timestamp: null,
  genealogy_result: null,
  genealogy_timestamp: null,
  muscle_wasting_risk: null,
  muscle_condition_reasons: null,
  muscle_condition_timestamp: null,
  estimated_weight_kg: null,
  estimated_size_classification: null,
  estimated_weight_reasons: null,
  estimated_weight_timestamp: null,
});

export type PetDoc = PetAnalysisDoc & {
  _id: string;
  id: string;
  account_id: string;
  name: string | null;
  breed_id: string | null;
  species_id: string | null;
  /** The breed's group, lower-cased ('' without a breed), for breed_groups / exclude_breed_groups. */
  breed_group_lc: string;
  description: string | null;
  microchip_id: string | null;
  sub_id: string | null;
  country: string | null;
  date_of_birth: string | null;
  age_years: number | null;
  age_months: number | null;
  age_recorded_at: string | null;
  body_condition_score: number | null;
  created_at: string;
  updated_at: string;
};

export type PetMediaDoc = PetMediaRecord & {
  _id: string;
  pet_id: string;
  account_id: string;
  upload_error: boolean;
  portrait_style_id: string | null;
  /** Sorts media in the order they were added: event position, then place in the batch. */
  order_key: string;
};

/** Respiratory-rate readings (projection `respiratory-rates`), the API resource plus the owner. */
export const RESPIRATORY_RATE_COLLECTIONS = { respiratoryRates: 'respiratory_rates' } as const;

export type RespiratoryRateDoc = {
  _id: string;
  id: string;
  pet_id: string;
  account_id: string;
  status: 'pending' | 'processing' | 'completed' | 'failed';
  breaths_per_minute: number | null;
  breed_baseline: { low: number; high: number } | null;
  within_baseline: boolean | null;
  video_id: string;
  reasons: string | null;
  failure_reason: string | null;
  requested_at: string;
  generated_at: string | null;
};

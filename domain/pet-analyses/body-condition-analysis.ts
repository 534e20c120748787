import type { Pose } from '../pets/pet.ts';
import type { BodyConditionResult } from './body-condition.ts';

/**
 * What the body-condition and muscle-condition analyses add to an analysis request
 * (`PetAnalysisRequested.inputs`; optional, so requests of the other kinds and older events
 * stay as they were), and the result shapes of the spec's "Analysis results".
 */
export type RequestPhoto = { media_id: string; blob_key: string; pose: Pose | null };

export type BodyConditionRequestInputs = {
  /** The pet's usable photos (not rejected by review) when it was requested. */
  photos?: RequestPhoto[];
  /** A weight the caller recorded for the pet (query `weight_kg`). */
  weight_kg?: number | null;
  /** The pet's sub_id when it was requested (for the review's webhook body). */
  sub_id?: string | null;
  /** An explicit vet review asked for with this score (POST …/body-condition-score/reviews). */
  review?: { note: string | null; external_owner_id: string | null } | null;
};

export type BodyConditionOutput = BodyConditionResult & { generated_at: string };
export type MuscleConditionOutput = { wasting_risk_flag: boolean; reasons: string; generated_at: string };

/** Photo poses each analysis measures: `top`/`back` give the view from above, `side` the belly line. */
export const TOP_POSES: readonly Pose[] = ['top', 'back'];
export const SIDE_POSES: readonly Pose[] = ['side'];
export const POSES_NEEDED: Partial<Record<string, readonly Pose[]>> = {
  body_condition: [...TOP_POSES, ...SIDE_POSES],
  muscle_condition: TOP_POSES,
};

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EstimateQuery, estimateFields } from './pet-analyses.ts';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const weightKg = Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000, description: 'the pet’s weighed weight in kg, compared with the breed’s ideal weight' }));

/** The spec's query of the body condition score, plus a recorded weight to compare with the breed's ideal. */
export const BodyConditionQuery = Type.Composite([EstimateQuery, Type.Object({ weight_kg: weightKg })]);

/** The same fields as an optional JSON body; a body value wins over the query's. */
export const BodyConditionBody = Type.Object({ ...estimateFields, weight_kg: weightKg }, { additionalProperties: false });

export const BodyConditionResult = Type.Object(
  {
    score: Type.Integer({ minimum: 1, maximum: 9, description: 'WSAVA body condition score' }),
    reasons: Type.String(),
    condition_flags: Type.Array(Type.String(), {
      description:
        'underweight | ideal | overweight | obese, and what was seen: prominent_waist, no_waist_from_above, pronounced_abdominal_tuck, abdominal_tuck_absent, abdominal_sag, views_disagree, weight_above_breed_range, weight_below_breed_range, vet_review_recommended',
    }),
    breed_predispositions: Type.Array(Type.String(), { description: "what the breed's record says about weight-related risks" }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    confidence_reason: Type.String(),
    generated_at: DateTime,
  },
  { description: 'Body condition score from the silhouettes of the top/back and side photos, the breed’s ideal weight and a recorded weight' },
);

export const MuscleConditionResult = Type.Object(
  {
    wasting_risk_flag: Type.Boolean(),
    reasons: Type.String(),
    generated_at: DateTime,
  },
  { description: 'Muscle condition from the top-view silhouette (hindquarter width and contour) and age/BCS risk factors' },
);

export const BcsReview = Type.Object(
  {
    id: Type.String(),
    pet_id: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('rejected')]),
    trigger: Type.Union([Type.Literal('low_confidence'), Type.Literal('requested')]),
    note: Nullable(Type.String()),
    score: Type.Integer({ minimum: 1, maximum: 9, description: 'the score as it stands: the vet’s correction when there is one' }),
    original_score: Type.Integer({ minimum: 1, maximum: 9 }),
    corrected_score: Nullable(Type.Integer({ minimum: 1, maximum: 9 })),
    confidence: Type.Number(),
    confidence_reason: Type.String(),
    condition_flags: Type.Array(Type.String()),
    reasons: Type.String(),
    vet_notes: Nullable(Type.String()),
    requested_at: DateTime,
    reviewed_at: Nullable(DateTime),
    sub_id: Nullable(Type.String()),
    external_owner_id: Nullable(Type.String()),
  },
  { description: 'A vet review of a body condition score (also the body of the pet.bcs.* webhooks)' },
);

export const BcsReviewRequestBody = Type.Object(
  {
    note: Type.Optional(Type.String({ maxLength: 1000, description: 'for the vet' })),
    external_owner_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the owner’s id in your system (default: the pet’s sub_id)' })),
    ...estimateFields,
    weight_kg: weightKg,
  },
  { additionalProperties: false },
);

export const BcsReviewParams = Type.Object({ reviewId: Type.String({ minLength: 1, maxLength: 64 }) });

export const BcsDecisionBody = Type.Object(
  {
    status: Type.Union([Type.Literal('completed'), Type.Literal('rejected')]),
    corrected_score: Type.Optional(Type.Integer({ minimum: 1, maximum: 9, description: 'only with status completed' })),
    vet_notes: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

/** Vet reviews (projection `bcs-reviews`): the API resource plus the owning account. */
export const BCS_REVIEW_COLLECTIONS = { bcsReviews: 'bcs_reviews' } as const;
export type BcsReviewDoc = Static<typeof BcsReview> & { _id: string; account_id: string };
export const bcsReviewResource = ({ _id, account_id, ...review }: BcsReviewDoc): Static<typeof BcsReview> => review;

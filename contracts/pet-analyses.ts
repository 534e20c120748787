import { Type } from '@sinclair/typebox';
import { CountryCode } from './common.ts';

const DateTime = Type.String({ format: 'date-time' });

/** The context the spec lists for the analyses (`lang` is accepted; results carry no translated text yet). */
export const estimateFields = {
  lang: Type.Optional(Type.String({ maxLength: 10 })),
  season: Type.Optional(Type.Union(['winter', 'spring', 'summer', 'autumn'].map((season) => Type.Literal(season)))),
  country: Type.Optional(CountryCode),
};

/** The analyses' query parameters. */
export const EstimateQuery = Type.Object(estimateFields);

/**
 * The same fields in an optional JSON body (TheCatAPI clients send them there): validated as the
 * query is, a body value wins over the query's (estimateInputOf), an unknown field is 400.
 */
export const EstimateBody = Type.Object(estimateFields, { additionalProperties: false, description: 'optional; a value here wins over the query parameter' });

/** What an analysis is asked with: the query, overridden field by field by the body. */
export const estimateInputOf = <Q extends object, B extends object>(query: Q, body: B | undefined | null): Q & B => ({ ...query, ...(body ?? {}) }) as Q & B;

export const WeightEstimateResult = Type.Object(
  {
    weight_kg: Type.Number(),
    size_classification: Type.String({ description: 'dogs toy/small/medium/large/giant; cats small/medium/large; horses miniature/pony/light/heavy' }),
    reasons: Type.String(),
    generated_at: DateTime,
  },
  { description: "Weight estimate from the breed's standard range, the growth curve for the pet's age and its body condition" },
);

export const AgeEstimateResult = Type.Object(
  {
    age_months: Type.Number(),
    reasons: Type.String(),
    plausible_range: Type.String({ description: 'e.g. "18–22 months"' }),
    life_stage: Type.String(),
    generated_at: DateTime,
  },
  { description: "Age estimate: exact from the pet's record, else from the ages given with its photos" },
);

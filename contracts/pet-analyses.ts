import { Type } from '@sinclair/typebox';
import { CountryCode } from './common.ts';

const DateTime = Type.String({ format: 'date-time' });

/** Query parameters the spec lists for the estimates (`lang` is accepted; results carry no translated text yet). */
export const EstimateQuery = Type.Object({
  lang: Type.Optional(Type.String({ maxLength: 10 })),
  season: Type.Optional(Type.Union(['winter', 'spring', 'summer', 'autumn'].map((season) => Type.Literal(season)))),
  country: Type.Optional(CountryCode),
});

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

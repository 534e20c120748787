import { Type, type Static } from '@sinclair/typebox';
import { LIFE_STAGES } from '../domain/pet-analyses/calories.ts';
import { PetId } from './pets.ts';

const Nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

export const CaloriesQuery = Type.Object({
  pet_id: Type.Optional(PetId),
  weight_kg: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 2000, description: 'body weight in kg; else the pet’s estimated weight, else the breed’s ideal weight' })),
  breed_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'a breed id; else the pet’s breed' })),
  species_id: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal('3')], { description: '1 cat, 2 dog, 3 horse; else from the pet or the breed' })),
  life_stage: Type.Optional(
    Type.Union(
      LIFE_STAGES.map((stage) => Type.Literal(stage)),
      { description: 'dogs: puppy, junior, adult, adult_intact, inactive, weight_loss, senior; cats: kitten, adult, adult_intact, inactive, weight_loss, senior; horses: maintenance. Else from the pet’s age (adult when unknown)' },
    ),
  ),
});
export type CaloriesQuery = Static<typeof CaloriesQuery>;

export const CaloriesResult = Type.Object(
  {
    pet_id: Type.Union([Type.String(), Type.Null()]),
    breed_id: Type.Union([Type.String(), Type.Null()]),
    species_id: Type.Union([Type.String(), Type.Null()]),
    weight_kg: Type.Number(),
    weight_source: Type.Union([Type.Literal('weight_kg'), Type.Literal('pet_estimated_weight'), Type.Literal('breed_ideal_weight')]),
    life_stage: Type.Union([Type.String(), Type.Null()]),
    life_stage_source: Type.Union([Type.Literal('life_stage'), Type.Literal('pet_age'), Type.Literal('assumed_adult'), Type.Literal('species'), Type.Null()]),
    rer_kcal_per_day: Nullable(Type.Number({ description: 'resting energy requirement, 70 × kg^0.75 (dogs and cats)' })),
    factor: Nullable(Type.Number({ description: 'life-stage factor applied to RER' })),
    der_kcal_per_day: Nullable(Type.Number({ description: 'daily energy requirement; null when the species is unknown' })),
    formula: Type.String(),
    reasons: Type.String(),
  },
  { description: 'Daily calorie needs, computed from the weight, species and life stage' },
);
export type CaloriesResult = Static<typeof CaloriesResult>;

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { CommaList, QueryBoolean, SpeciesIdParam } from './common.ts';
import { RecordId } from './facts.ts';
import { Lang } from './language.ts';
import { OrderValues, styleA } from './paging.ts';

/**
 * The Breed resource: TheCatAPI-compatible flat fields (the species' own ones included) plus
 * `expansions`, which groups the species-specific attributes as the spec describes (only the
 * breed's own species is present). The projection stores this shape ready-made.
 */
const S = Type.String();
const Range = Type.String({ description: 'numeric range as text, e.g. "4 - 6"' });
const Rating = Type.Integer({ minimum: 1, maximum: 5 });
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

export const CAT_RATING_FIELDS = [
  'adaptability',
  'affection_level',
  'child_friendly',
  'cat_friendly',
  'dog_friendly',
  'energy_level',
  'grooming',
  'health_issues',
  'intelligence',
  'shedding_level',
  'social_needs',
  'stranger_friendly',
  'vocalisation',
] as const;
export const CAT_FLAG_FIELDS = ['indoor', 'lap', 'experimental', 'hairless', 'natural', 'rare', 'rex', 'suppressed_tail', 'short_legs', 'hypoallergenic'] as const;
export const CAT_URL_FIELDS = ['assoc_url', 'portal_url', 'clinic_url'] as const;
export const RANGE_FIELDS = [
  'male_height_inches',
  'male_height_cm',
  'female_height_inches',
  'female_height_cm',
  'male_weight_pounds',
  'male_weight_kg',
  'female_weight_pounds',
  'female_weight_kg',
] as const;
export const DOG_SCORE_FIELDS = [
  'good_with_other_dogs_score',
  'shedding_score',
  'grooming_score',
  'bidability_score',
  'prey_drive_score',
  'barking_score',
] as const;
export const DOG_TEXT_FIELDS = [
  'good_with_other_dogs_context',
  'shedding_reason',
  'grooming_type',
  'bidability_characteristics',
  'prey_drive_reason',
  'barking_characteristics',
] as const;
export const DOG_STRING_FIELDS = ['fci_group', 'family_friendly', 'daily_exercise_time_minutes', 'exercise_type'] as const;
export const HORSE_FIELDS = ['height_hands', 'common_uses', 'notable_traits'] as const;

const fields = <K extends string, T extends TSchema>(names: readonly K[], schema: T) =>
  Object.fromEntries(names.map((name) => [name, schema])) as Record<K, T>;

export const CatExpansion = Type.Object({
  ...fields(CAT_RATING_FIELDS, Rating),
  ...fields(CAT_FLAG_FIELDS, Type.Boolean()),
  ...fields(CAT_URL_FIELDS, S),
});
export const DogExpansion = Type.Object({
  model: Type.String({ description: 'the data model the dog attributes follow (reference-data/1)' }),
  ...fields(RANGE_FIELDS, Range),
  ...fields(DOG_SCORE_FIELDS, Rating),
  ...fields(DOG_TEXT_FIELDS, S),
  language: Type.String({ description: 'language of the text companions' }),
});
export const HorseExpansion = Type.Object(fields(HORSE_FIELDS, S));

export const VenomCode = Type.Object({ code: S, name: S, is_primary: Type.Boolean() });

export const Breed = Type.Object(
  {
    id: S,
    name: S,
    species_id: Type.String({ description: '1 cat, 2 dog, 3 horse' }),
    weight: Type.Object({ imperial: S, metric: S }, { description: 'TheCatAPI-style breed weight (pounds, kilograms)' }),
    temperament: S,
    origin: S,
    country_codes: S,
    country_code: S,
    description: S,
    history: S,
    life_span: S,
    alt_names: S,
    wikipedia_url: S,
    reference_image_id: Type.Union([S, Type.Null()], { description: 'null until images of the breed exist' }),
    bred_for: S,
    perfect_for: S,
    breed_group: S,
    extinct: Type.Boolean(),
    rare: Type.Boolean(),
    weight_kg: Range,
    weight_pounds: Range,
    ...fields(RANGE_FIELDS, Range),
    venom_codes: Type.Array(VenomCode),
    ...fields(CAT_RATING_FIELDS, opt(Rating)),
    ...fields(
      CAT_FLAG_FIELDS.filter((flag) => flag !== 'rare'),
      opt(Type.Boolean()),
    ),
    ...fields(CAT_URL_FIELDS, opt(S)),
    ...fields(DOG_STRING_FIELDS, opt(S)),
    ...fields(DOG_SCORE_FIELDS, opt(Rating)),
    ...fields(DOG_TEXT_FIELDS, opt(S)),
    ...fields(HORSE_FIELDS, opt(S)),
    expansions: Type.Object({ cat: opt(CatExpansion), dog: opt(DogExpansion), horse: opt(HorseExpansion) }),
    language: Type.String({ description: 'the language name, description, temperament and origin are served in (English where the breed has no translation)' }),
  },
  { description: 'A breed (cat, dog or horse)' },
);
export type Breed = Static<typeof Breed>;

export const Colour = Type.Object(
  {
    id: S,
    species_id: S,
    breed_id: Type.Union([S, Type.Null()], { description: 'null for a variant valid for the whole species' }),
    code: S,
    name: S,
    base_colour: S,
    pattern: S,
    standard: S,
    description: S,
  },
  { description: 'A colour / pattern variant' },
);
export type Colour = Static<typeof Colour>;

export const BreedIdParams = Type.Object({ id: RecordId });

const breedFilters = {
  species_id: Type.Optional(SpeciesIdParam),
  breed_groups: Type.Optional(CommaList('only these breed groups (case-insensitive)')),
  exclude_breed_groups: Type.Optional(CommaList('not these breed groups (case-insensitive)')),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 30, description: 'part of the breed name, case-insensitive' })),
  venom_code: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'matches any colour code of the breed, not only the primary' })),
  lang: Lang,
};

/** The Image schema (contracts/image-resource.ts) by reference: that module imports this one. */
const ImageSchemaRef = Type.Unsafe(Type.Ref('Image'));

/** GET /breeds and /breeds/{id}: the reference image is embedded unless attach_image=0. */
const AttachImage = QueryBoolean(
  "embed the breed's reference image as `image` (the Image). Omitted: on breeds that have one (as TheCatAPI); 1: on every breed, null when it has none; 0: never",
);

/** A breed as the breed reads answer it: with its reference image embedded (attach_image). */
export const BreedWithImage = Type.Intersect([
  Breed,
  Type.Object({ image: Type.Optional(Type.Union([ImageSchemaRef, Type.Null()], { description: 'the reference image (attach_image), null when the breed has none' })) }),
]);

/** GET /breeds: the large page (limit up to 1000, default 1000), extinct breeds hidden by default. */
export const ListBreedsQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 1000 }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  order: Type.Optional(
    Type.Union(
      OrderValues.map((value) => Type.Literal(value)),
      { description: 'ASC, DESC (by name) or RANDOM; omitted: by name' },
    ),
  ),
  extinct: Type.Optional(QueryBoolean('include only extinct (true) or only living (false) breeds', false)),
  attach_image: Type.Optional(AttachImage),
  ...breedFilters,
});
export type ListBreedsQuery = Static<typeof ListBreedsQuery>;

/** GET /breeds/search: style A, default limit 10; extinct omitted = no filter on extinction. */
export const SearchBreedsQuery = Type.Object({
  ...styleA({ limit: 10 }),
  extinct: Type.Optional(QueryBoolean('only extinct (true) or only living (false) breeds; omitted: both')),
  attach_image: Type.Optional(QueryBoolean("TheCatAPI: embed each breed's reference image as `image` (the Image; null when it has none)", false)),
  ...breedFilters,
});
export type SearchBreedsQuery = Static<typeof SearchBreedsQuery>;

export const BreedReadQuery = Type.Object({ lang: Lang, attach_image: Type.Optional(AttachImage) });


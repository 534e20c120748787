import { Type, type Static, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';
import { CAT_FLAG_FIELDS, CAT_RATING_FIELDS } from '../contracts/breeds.ts';
import {
  APPROACHES,
  BAN_TYPES,
  FACT_CATEGORIES,
  JURISDICTION_TYPES,
  LEGISLATION_LEVELS,
  LEGISLATION_STATUSES,
  LEGISLATION_TYPES,
  TIP_CATEGORIES,
  TRANSLATED_LANGUAGES,
} from '../domain/reference-data/vocabulary.ts';

/**
 * TypeBox schemas of every authored reference-data file (formats: reference-data/README.md).
 * The import validates the files against these before appending a single event, and
 * reference-data/reference-data.unit.spec.ts checks every record, the counts and the
 * references between files.
 */
const strict = { additionalProperties: false } as const;

/** A union of string literals that keeps the literal types. */
const literals = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value))) as TUnion<TLiteral<T[number]>[]>;

const NonEmpty = Type.String({ minLength: 1 });
const Url = Type.String({ pattern: '^https?://[^\\s]+$' });
/** A numeric range written as text: "4 - 6", "14.2 - 15.2" or a single value "30". */
export const RangeString = Type.String({ pattern: '^\\d+(\\.\\d+)?( - \\d+(\\.\\d+)?)?$' });
const Rating = Type.Integer({ minimum: 1, maximum: 5 });
const IsoCountry = Type.String({ pattern: '^[A-Z]{2}$' });
const IsoCountryList = Type.String({ pattern: '^[A-Z]{2}(,[A-Z]{2})*$' });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });


/**
 * The fields served in every language, per kind of record: the English text is the field itself,
 * es/fr/de live under `translations.<lang>.<field>`. Breed care tips are served in English only
 * (their read model carries no translations), so they are not listed.
 */
export const TRANSLATABLE_FIELDS = {
  breed: ['name', 'description', 'temperament', 'origin'],
  fact: ['title', 'fact'],
  healthtip: ['title', 'description'],
} as const;

/** `{es: {…fields}, fr: …, de: …}`, every language and every field required. */
const translations = <const F extends readonly string[]>(fields: F) => {
  const item = Type.Object(Object.fromEntries(fields.map((field) => [field, NonEmpty])) as Record<F[number], typeof NonEmpty>, strict);
  return Type.Object(
    Object.fromEntries(TRANSLATED_LANGUAGES.map((lang) => [lang, item])) as Record<(typeof TRANSLATED_LANGUAGES)[number], typeof item>,
    strict,
  );
};

export const VenomCode = Type.Object({ code: NonEmpty, name: NonEmpty, is_primary: Type.Boolean() }, strict);

export const BreedColour = Type.Object(
  { code: NonEmpty, name: NonEmpty, base_colour: NonEmpty, pattern: NonEmpty, standard: NonEmpty, description: NonEmpty },
  strict,
);

const TipCategory = literals(TIP_CATEGORIES);

export const BreedCareTip = Type.Object({ category: TipCategory, title: NonEmpty, description: NonEmpty }, strict);

const commonBreedFields = {
  id: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 64 }),
  name: NonEmpty,
  alt_names: Type.String(),
  temperament: NonEmpty,
  origin: NonEmpty,
  country_codes: IsoCountryList,
  country_code: IsoCountry,
  description: NonEmpty,
  history: NonEmpty,
  life_span: RangeString,
  wikipedia_url: Url,
  bred_for: NonEmpty,
  perfect_for: NonEmpty,
  extinct: Type.Boolean(),
  rare: Type.Boolean(),
  weight_kg: RangeString,
  weight_pounds: RangeString,
  male_weight_kg: RangeString,
  male_weight_pounds: RangeString,
  female_weight_kg: RangeString,
  female_weight_pounds: RangeString,
  male_height_cm: RangeString,
  male_height_inches: RangeString,
  female_height_cm: RangeString,
  female_height_inches: RangeString,
  venom_codes: Type.Array(VenomCode, { minItems: 1 }),
  colours: Type.Array(BreedColour, { minItems: 1 }),
  care_tips: Type.Array(BreedCareTip, { minItems: 2, maxItems: 3 }),
  translations: translations(TRANSLATABLE_FIELDS.breed),
};

/** The cat ratings and flags are the API's own lists; `rare` is a common field of every breed file. */
export const CAT_RATINGS = CAT_RATING_FIELDS;
export const CAT_FLAGS = CAT_FLAG_FIELDS.filter((name): name is Exclude<(typeof CAT_FLAG_FIELDS)[number], 'rare'> => name !== 'rare');

export const CAT_BREED_GROUPS = [
  'Category I: Persian and Exotic',
  'Category II: Semi-longhair',
  'Category III: Shorthair and Somali',
  'Category IV: Siamese and Oriental',
  'Not recognised by FCI',
] as const;

export const CatBreed = Type.Object(
  {
    ...commonBreedFields,
    species_id: Type.Literal('1'),
    breed_group: literals(CAT_BREED_GROUPS),
    ...(Object.fromEntries(CAT_RATINGS.map((name) => [name, Rating])) as Record<(typeof CAT_RATINGS)[number], typeof Rating>),
    ...(Object.fromEntries(CAT_FLAGS.map((name) => [name, Type.Boolean()])) as Record<(typeof CAT_FLAGS)[number], ReturnType<typeof Type.Boolean>>),
    assoc_url: Url,
    portal_url: Url,
    clinic_url: Url,
  },
  strict,
);
export type CatBreed = Static<typeof CatBreed>;

/** AKC groups, `FCI only` (FCI group in fci_group), or neither registry (e.g. the American Pit Bull Terrier). */
export const DOG_BREED_GROUPS = [
  'Sporting',
  'Hound',
  'Working',
  'Terrier',
  'Toy',
  'Non-Sporting',
  'Herding',
  'Miscellaneous',
  'FCI only',
  'Not recognised by AKC or FCI',
] as const;
export const DOG_SCORES = [
  ['good_with_other_dogs_score', 'good_with_other_dogs_context'],
  ['shedding_score', 'shedding_reason'],
  ['grooming_score', 'grooming_type'],
  ['bidability_score', 'bidability_characteristics'],
  ['prey_drive_score', 'prey_drive_reason'],
  ['barking_score', 'barking_characteristics'],
] as const;
export const DOG_RATINGS = ['child_friendly', 'dog_friendly', 'energy_level', 'intelligence'] as const;

export const DogBreed = Type.Object(
  {
    ...commonBreedFields,
    species_id: Type.Literal('2'),
    breed_group: literals(DOG_BREED_GROUPS),
    fci_group: Type.String(),
    family_friendly: NonEmpty,
    daily_exercise_time_minutes: RangeString,
    exercise_type: NonEmpty,
    ...(Object.fromEntries(DOG_SCORES.map(([score]) => [score, Rating])) as Record<(typeof DOG_SCORES)[number][0], typeof Rating>),
    ...(Object.fromEntries(DOG_SCORES.map(([, text]) => [text, NonEmpty])) as Record<(typeof DOG_SCORES)[number][1], typeof NonEmpty>),
    ...(Object.fromEntries(DOG_RATINGS.map((name) => [name, Rating])) as Record<(typeof DOG_RATINGS)[number], typeof Rating>),
  },
  strict,
);
export type DogBreed = Static<typeof DogBreed>;

export const HORSE_BREED_GROUPS = ['Light horse', 'Warmblood', 'Draft', 'Pony', 'Gaited', 'Feral / landrace'] as const;

export const HorseBreed = Type.Object(
  {
    ...commonBreedFields,
    species_id: Type.Literal('3'),
    breed_group: literals(HORSE_BREED_GROUPS),
    height_hands: RangeString,
    common_uses: NonEmpty,
    notable_traits: NonEmpty,
  },
  strict,
);
export type HorseBreed = Static<typeof HorseBreed>;

export type Breed = CatBreed | DogBreed | HorseBreed;

export const SpeciesColour = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
    species_id: Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal('3')]),
    breed_id: Type.Null(),
    code: NonEmpty,
    name: NonEmpty,
    base_colour: NonEmpty,
    pattern: NonEmpty,
    standard: NonEmpty,
    description: NonEmpty,
  },
  strict,
);
export type SpeciesColour = Static<typeof SpeciesColour>;

export const Category = Type.Object(
  { id: Type.String({ pattern: '^[1-9][0-9]*$' }), name: NonEmpty, species_id: Type.Union([Type.Literal('1'), Type.Literal('2'), Type.Literal('3')]) },
  strict,
);
export type Category = Static<typeof Category>;


const SpeciesNumber = Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]);

export const Fact = Type.Object(
  {
    id: Type.String({ pattern: '^fact-(cat|dog|horse)-\\d{3,}$' }),
    title: NonEmpty,
    fact: NonEmpty,
    slug: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' }),
    category: literals(FACT_CATEGORIES),
    species_id: SpeciesNumber,
    breed_id: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    sources: Type.Array(Url, { minItems: 1 }),
    translations: translations(TRANSLATABLE_FIELDS.fact),
  },
  strict,
);
export type Fact = Static<typeof Fact>;

export const HealthTip = Type.Object(
  {
    id: Type.String({ pattern: '^tip-\\d{3,}$' }),
    title: NonEmpty,
    category: TipCategory,
    description: NonEmpty,
    species_id: SpeciesNumber,
    breed_id: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    sources: Type.Array(Url),
    translations: translations(TRANSLATABLE_FIELDS.healthtip),
  },
  strict,
);
export type HealthTip = Static<typeof HealthTip>;

export const Country = Type.Object(
  {
    iso_code: IsoCountry,
    name: NonEmpty,
    has_national_legislation: Type.Boolean(),
    legislation_level: literals(LEGISLATION_LEVELS),
  },
  strict,
);
export type Country = Static<typeof Country>;


export const Law = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    country_iso_code: IsoCountry,
    jurisdiction: Type.Union([Type.Object({ name: NonEmpty, type: literals(JURISDICTION_TYPES) }, strict), Type.Null()]),
    legislation_name: NonEmpty,
    legislation_type: literals(LEGISLATION_TYPES),
    approach: literals(APPROACHES),
    status: literals(LEGISLATION_STATUSES),
    animal_type: literals(['dog', 'cat'] as const),
    effective_date: IsoDate,
    source_url: Url,
    summary: NonEmpty,
    banned_breeds: Type.Array(
      Type.Object(
        {
          breed_id: NonEmpty,
          breed_name: NonEmpty,
          ban_type: literals(BAN_TYPES),
          filial_generation: Type.String(),
          conditions: Type.String(),
          penalty_summary: Type.String(),
          includes_mixes: Type.Boolean(),
        },
        strict,
      ),
    ),
    characteristics: Type.Array(
      Type.Object({ type: NonEmpty, operator: Type.String(), value: Type.String(), unit: Type.String(), description: NonEmpty }, strict),
    ),
    requirements: Type.Array(
      Type.Object({ type: NonEmpty, description: NonEmpty, value: Type.String(), is_mandatory: Type.Boolean() }, strict),
    ),
  },
  strict,
);
export type Law = Static<typeof Law>;

/** Every file of the dataset with the schema of its records (each file is a JSON array). */
export const DATA_FILES = {
  'breeds/cats.json': CatBreed,
  'breeds/dogs-1.json': DogBreed,
  'breeds/dogs-2.json': DogBreed,
  'breeds/horses.json': HorseBreed,
  'colours/species.json': SpeciesColour,
  'categories.json': Category,
  'facts/cats.json': Fact,
  'facts/dogs.json': Fact,
  'facts/horses.json': Fact,
  'health-tips.json': HealthTip,
  'legislation/countries.json': Country,
  'legislation/laws.json': Law,
} as const satisfies Record<string, TSchema>;

/** The minimum sizes the dataset must reach. */
export const MINIMUM_COUNTS = { cats: 67, dogs: 170, horses: 40, facts: 500, healthTips: 150, countriesWithLaws: 30 } as const;

/**
 * The closed vocabularies of the reference data that both the data schemas
 * (reference-data/schemas.ts) and the API contracts (contracts/*.ts) use.
 */
export const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';
export const TRANSLATED_LANGUAGES = ['es', 'fr', 'de'] as const;

/** species_id: 1 cat, 2 dog, 3 horse. Legislation names the animal instead. */
export const SPECIES = { '1': 'cat', '2': 'dog', '3': 'horse' } as const;
export const ANIMAL_TYPES = ['dog', 'cat'] as const;
export type AnimalType = (typeof ANIMAL_TYPES)[number];
export const speciesOfAnimalType = (animalType: AnimalType): '1' | '2' => (animalType === 'cat' ? '1' : '2');

export const LEGISLATION_TYPES = ['breed_specific', 'characteristic_based', 'behavior_based', 'hybrid'] as const;
export const APPROACHES = ['ban', 'restriction', 'permit', 'approved_list'] as const;
export const BAN_TYPES = ['ban', 'restriction', 'permit'] as const;
export const LEGISLATION_STATUSES = ['in_force', 'repealed'] as const;
export const LEGISLATION_LEVELS = ['national', 'regional', 'municipal', 'mixed', 'none'] as const;
export const JURISDICTION_TYPES = ['state', 'province', 'canton', 'land', 'autonomous_community', 'city', 'county', 'municipality'] as const;

export const FACT_CATEGORIES = ['Anatomy', 'Behaviour', 'History', 'Health', 'Senses', 'Records', 'Breeds', 'Care', 'Culture', 'Reproduction'] as const;
export const TIP_CATEGORIES = [
  'Exercise',
  'Nutrition',
  'Health Monitoring',
  'Disease Prevention',
  'Behavioral Health',
  'Grooming',
  'Dental Care',
  'Safety',
  'Senior Care',
] as const;

/** Care tips seeded from the breed records carry this tip_type; generated ones are `personalised`. */
export const CARE_TIP_TYPES = ['breed_standard', 'personalised'] as const;
export const careTipId = (breedId: string, n: number): string => `care-${breedId}-${n}`;
/** Colour variant ids: `<breed id or species>-<code lowercase>`. */
export const breedColourId = (breedId: string, code: string): string => `${breedId}-${code.toLowerCase()}`;

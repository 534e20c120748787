import {
  CAT_FLAG_FIELDS,
  CAT_RATING_FIELDS,
  CAT_URL_FIELDS,
  DOG_SCORE_FIELDS,
  DOG_TEXT_FIELDS,
  HORSE_FIELDS,
  RANGE_FIELDS,
  type Breed as BreedResource,
} from '../contracts/breeds.ts';
import type { Breed as BreedRecord } from '../reference-data/schemas.ts';

const pick = (record: Record<string, unknown>, names: readonly string[]) => {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (record[name] !== undefined) picked[name] = record[name];
  return picked;
};

/** The version of the data model the dog expansion follows (its `model`). */
export const DOG_EXPANSION_MODEL = 'reference-data/1';

/**
 * The Breed resource as the API serves it, built once when the breed is projected: the record's
 * flat fields (without colours, care tips and translations, which have their own read models),
 * TheCatAPI's `weight: {imperial, metric}`, `reference_image_id` (null until images exist) and
 * `expansions` holding the attributes of the breed's species.
 */
export const toBreedResource = (breed: BreedRecord): Omit<BreedResource, 'language'> => {
  const { colours: _colours, care_tips: _careTips, translations: _translations, ...flat } = breed;
  const record: Record<string, unknown> = breed;
  const expansions: BreedResource['expansions'] = {};
  if (breed.species_id === '1') {
    expansions.cat = pick(record, [...CAT_RATING_FIELDS, ...CAT_FLAG_FIELDS, ...CAT_URL_FIELDS]) as NonNullable<BreedResource['expansions']['cat']>;
  } else if (breed.species_id === '2') {
    expansions.dog = {
      model: DOG_EXPANSION_MODEL,
      ...pick(record, [...RANGE_FIELDS, ...DOG_SCORE_FIELDS, ...DOG_TEXT_FIELDS]),
      language: 'en',
    } as NonNullable<BreedResource['expansions']['dog']>;
  } else {
    expansions.horse = pick(record, HORSE_FIELDS) as NonNullable<BreedResource['expansions']['horse']>;
  }
  return {
    ...(flat as Omit<BreedResource, 'language'>),
    weight: { imperial: breed.weight_pounds, metric: breed.weight_kg },
    reference_image_id: null,
    expansions,
  };
};

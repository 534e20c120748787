import type { Breed, Colour } from './breeds.ts';
import type { CountryListItem, Legislation } from './legislation.ts';
import type { Language } from '../domain/reference-data/vocabulary.ts';

/**
 * Read models of the reference data (breeds, colours, care tips, facts, health tips, categories,
 * countries, legislation). Documents hold the API shape ready-made, so a query only filters,
 * pages and (for `lang`) swaps in a translation.
 */
export const REFERENCE_COLLECTIONS = {
  breeds: 'breeds',
  /** One document (BREEDS_VERSION_ID): the position of the last change to the breeds collection (see BreedsVersionDoc). */
  breedsVersion: 'breeds_version',
  colours: 'colours',
  careTips: 'care_tips',
  facts: 'facts',
  healthTips: 'health_tips',
  categories: 'categories',
  countries: 'countries',
  legislation: 'legislation',
} as const;

/**
 * The breeds collection's version: the position of the last event that changed a breed document,
 * written by the breeds projection with that change. The projection's checkpoint moves with every
 * batch of the log (votes included), this only when a breed does: what the query side's breed
 * catalogue compares before it rebuilds its snapshot. The position is a decimal string.
 */
export type BreedsVersionDoc = { _id: typeof BREEDS_VERSION_ID; position: string };
export const BREEDS_VERSION_ID = 'breeds';

export type TranslatedLanguage = 'es' | 'fr' | 'de';
export type Translations<T> = Partial<Record<TranslatedLanguage, T>>;

export type BreedTranslation = { name: string; description: string; temperament?: string; origin?: string };

export type BreedDoc = {
  _id: string;
  id: string;
  species_id: string;
  name: string;
  /** Lower-cased name, breed group and (upper-cased) colour codes, for case-insensitive filters. */
  name_lc: string;
  breed_group_lc: string;
  venom_code_list: string[];
  extinct: boolean;
  /** The Breed resource in English (the query side adds `language`). */
  resource: Omit<Breed, 'language'>;
  /** temperament and origin join name and description as the data files gain them. */
  translations: Translations<BreedTranslation>;
};

export type ColourDoc = Colour & { _id: string; /** breed-specific variants keep the breed's order */ seq: number };

/** Breed-standard care tips seeded from the breed records (`care-<breed id>-<n>`), for the pets work. */
export type CareTipDoc = {
  _id: string;
  id: string;
  breed_id: string;
  species_id: string;
  category: string;
  title: string;
  description: string;
  tip_type: 'breed_standard';
  sources: string[];
  seq: number;
};

export type FactDoc = {
  _id: string;
  id: string;
  title: string;
  fact: string;
  slug: string;
  category: string;
  category_lc: string;
  species_id: number;
  breed_id: string | null;
  sources: string[];
  translations: Translations<{ title: string; fact: string }>;
};

export type HealthTipDoc = {
  _id: string;
  id: string;
  title: string;
  category: string;
  description: string;
  species_id: number;
  breed_id: string | null;
  sources: string[];
  translations: Translations<{ title: string; description: string }>;
};

export type CategoryDoc = { _id: string; id: string; name: string; species_id: string; /** numeric id, for ordering */ num: number };

export type CountryDoc = CountryListItem & { _id: string };

export type LegislationDoc = Legislation & {
  _id: string;
  species_id: '1' | '2';
  banned_breed_ids: string[];
  jurisdiction_name_lc: string | null;
};

/** The projections (checkpoint names) that build these read models. */
export const REFERENCE_PROJECTIONS = {
  breeds: 'breeds',
  facts: 'facts',
  healthTips: 'health-tips',
  categories: 'categories',
  legislation: 'legislation',
} as const;

/** The Breed resource of a breed document in one language (its translation, or English when it has none). */
export const breedIn = (doc: BreedDoc, translation: BreedDoc['translations'][TranslatedLanguage] | undefined, lang: Language): Breed =>
  translation
    ? {
        ...doc.resource,
        name: translation.name,
        description: translation.description,
        temperament: translation.temperament ?? doc.resource.temperament,
        origin: translation.origin ?? doc.resource.origin,
        language: lang,
      }
    : { ...doc.resource, language: 'en' };

import { Type } from '@sinclair/typebox';
import { LANGUAGES } from '../domain/reference-data/vocabulary.ts';

/**
 * `lang` on reference-data reads: en, es, fr or de. Untranslated content falls back to English,
 * and the response header Content-Language names the language served. Any other value is a 400
 * (a typo should not silently answer in English).
 */
export const Lang = Type.Optional(
  Type.Union(
    LANGUAGES.map((language) => Type.Literal(language)),
    { description: 'en (default), es, fr or de; untranslated content falls back to English (see Content-Language)' },
  ),
);

export const IncludeSourcesDescription = 'add the source URLs (`sources`)';

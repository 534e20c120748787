import { Type } from '@sinclair/typebox';
import { LANGUAGES } from '../domain/reference-data/vocabulary.ts';

/**
 * A BCP 47 language tag as clients send them (`de`, `DE`, `de-DE`, `de-Latn-CH`, also the
 * POSIX-style `de_DE` a device locale often gives): a primary language subtag of 2–8 letters,
 * then subtags of 1–8 letters or digits, any case. Only a value that is not shaped like this is
 * refused (400); the language part of a well-formed tag is served when we have it, English
 * otherwise.
 */
export const LANGUAGE_TAG_PATTERN = '^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$';

export const Lang = Type.Optional(
  Type.String({
    maxLength: 64,
    pattern: LANGUAGE_TAG_PATTERN,
    description:
      `a BCP 47 language tag, any case (de, DE, de-DE, de_DE). Its language part picks the translation: ${LANGUAGES.join(', ')}; ` +
      'any other language is answered in English. Without `lang`, the Accept-Language header decides. ' +
      'Each item says the language it is in (`language`); Content-Language lists the languages served.',
  }),
);

/** The `language` field of translated resources: the language this item's texts are in. */
export const ItemLanguage = Type.String({ description: `the language of this item's texts (${LANGUAGES.join(', ')}); English where no translation exists` });

export const IncludeSourcesDescription = 'add the source URLs (`sources`)';

import type { FastifyReply } from 'fastify';
import { DEFAULT_LANGUAGE, type Language } from '../domain/reference-data/vocabulary.ts';
import type { TranslatedLanguage, Translations } from '../contracts/reference-read-models.ts';

/**
 * Translated reads: `lang` picks the translation of each record, English where a record has
 * none. Content-Language says what was served: for one record its language, for a list the
 * requested language if at least one item was served in it, else English.
 */
export const translationOf = <T>(translations: Translations<T> | undefined, lang: Language | undefined): T | undefined =>
  lang && lang !== DEFAULT_LANGUAGE ? translations?.[lang as TranslatedLanguage] : undefined;

export class ServedLanguage {
  private translated = false;
  constructor(private readonly requested: Language | undefined) {}

  /** Notes whether one item was served translated; returns its translation (if any). */
  pick<T>(translations: Translations<T> | undefined): T | undefined {
    const translation = translationOf(translations, this.requested);
    if (translation) this.translated = true;
    return translation;
  }

  get language(): Language {
    return this.translated && this.requested ? this.requested : DEFAULT_LANGUAGE;
  }

  apply(reply: FastifyReply): void {
    reply.header('Content-Language', this.language);
  }
}

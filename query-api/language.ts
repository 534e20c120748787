import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../domain/reference-data/vocabulary.ts';
import type { TranslatedLanguage, Translations } from '../contracts/reference-read-models.ts';

/**
 * Which language a read is served in, negotiated as HTTP does:
 * - `lang` (a BCP 47 tag, validated by the schema) wins: its language part, case-insensitive
 *   (`de-DE`, `DE`, `de_AT` → de); a language we do not have (`it`) → English;
 * - without `lang`, the Accept-Language header (quality values honoured, `de-CH` matches de);
 *   nothing acceptable, or no header → English.
 */
export const negotiateLanguage = (lang: string | undefined, acceptLanguage: string | string[] | undefined): Language => {
  if (lang !== undefined) {
    const primary = lang.split(/[-_]/)[0].toLowerCase();
    return (LANGUAGES as readonly string[]).includes(primary) ? (primary as Language) : DEFAULT_LANGUAGE;
  }
  if (!acceptLanguage) return DEFAULT_LANGUAGE;
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(', ') : acceptLanguage;
  const [best] = new Negotiator({ headers: { 'accept-language': header } }).languages([...LANGUAGES]);
  return (best as Language | undefined) ?? DEFAULT_LANGUAGE;
};

/** The language a request asks for (its `lang` query value, else its Accept-Language header). */
export const requestedLanguage = (request: FastifyRequest): Language =>
  negotiateLanguage((request.query as { lang?: string } | undefined)?.lang, request.headers['accept-language']);

export const translationOf = <T>(translations: Translations<T> | undefined, lang: Language): T | undefined =>
  lang !== DEFAULT_LANGUAGE ? translations?.[lang as TranslatedLanguage] : undefined;

/** `de, en`: the requested language first, then the others in a fixed order. */
export const contentLanguageOf = (served: Iterable<Language>, requested: Language): string => {
  const set = new Set(served);
  if (set.size === 0) return requested;
  return [requested, ...LANGUAGES.filter((language) => language !== requested)].filter((language) => set.has(language)).join(', ');
};

/** Adds a field name to the Vary header, keeping what is there (CORS adds Origin, compression Accept-Encoding). */
export const addVary = (reply: FastifyReply, field: string): void => {
  const current = reply.getHeader('Vary');
  const fields = (Array.isArray(current) ? current.join(',') : String(current ?? '')).split(',').map((item) => item.trim()).filter(Boolean);
  if (fields.includes('*') || fields.some((item) => item.toLowerCase() === field.toLowerCase())) return;
  reply.header('Vary', [...fields, field].join(', '));
};

/**
 * Translated reads: the negotiated language picks each record's translation, English where a
 * record has none. Every item says the language it was served in (`language`), and
 * Content-Language names every language actually served (`de, en` when a list is mixed; the
 * negotiated language for an empty list). Vary: Accept-Language, since the header can decide.
 */
export class ServedLanguage {
  private readonly served = new Set<Language>();
  constructor(readonly requested: Language) {}

  static of(request: FastifyRequest): ServedLanguage {
    return new ServedLanguage(requestedLanguage(request));
  }

  /** The translation of one item (if any) and the language the item is served in. */
  pick<T>(translations: Translations<T> | undefined): { translation: T | undefined; language: Language } {
    const translation = translationOf(translations, this.requested);
    const language = translation ? this.requested : DEFAULT_LANGUAGE;
    this.served.add(language);
    return { translation, language };
  }

  get contentLanguage(): string {
    return contentLanguageOf(this.served, this.requested);
  }

  apply(reply: FastifyReply): void {
    reply.header('Content-Language', this.contentLanguage);
    addVary(reply, 'Accept-Language');
  }
}

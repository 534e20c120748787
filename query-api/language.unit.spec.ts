import { describe, expect, it } from 'vitest';
import { contentLanguageOf, negotiateLanguage } from './language.ts';

describe('language negotiation', () => {
  it('takes the language part of lang, any case, English for a language we lack', () => {
    expect(negotiateLanguage('de-DE', undefined)).toBe('de');
    expect(negotiateLanguage('ES', 'fr')).toBe('es');
    expect(negotiateLanguage('fr_CA', undefined)).toBe('fr');
    expect(negotiateLanguage('it', 'de')).toBe('en');
  });

  it('falls back to Accept-Language, honouring quality values and regions', () => {
    expect(negotiateLanguage(undefined, 'de-AT,de;q=0.9,en;q=0.8')).toBe('de');
    expect(negotiateLanguage(undefined, 'it;q=1, es;q=0.4, fr;q=0.6')).toBe('fr');
    expect(negotiateLanguage(undefined, 'es;q=0, nl')).toBe('en');
    expect(negotiateLanguage(undefined, ['pt', 'es-MX'])).toBe('es');
    expect(negotiateLanguage(undefined, undefined)).toBe('en');
  });

  it('names the languages served, the requested one first', () => {
    expect(contentLanguageOf(['en', 'de', 'en'], 'de')).toBe('de, en');
    expect(contentLanguageOf(['en'], 'fr')).toBe('en');
    expect(contentLanguageOf([], 'es')).toBe('es');
  });
});

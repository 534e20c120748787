import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Value } from '@sinclair/typebox/value';
import { DATA_FILES, MINIMUM_COUNTS, TRANSLATABLE_FIELDS, type Breed, type Country, type Fact, type HealthTip, type Law, type SpeciesColour } from './schemas.ts';
import { DATA_FILE_NAMES, REFERENCE_DATA_DIR, integrityProblems, loadDataset, parseDataset, type DataFile, type Dataset } from './dataset.ts';

/**
 * The authored data, checked straight from the files: every record against its schema, the
 * minimum counts, id uniqueness and every reference between files. The checks here are written
 * out on their own (not through the import's validator), and the validator is then shown to
 * catch each kind of broken data.
 */
const read = <T>(name: string): T[] => JSON.parse(readFileSync(join(REFERENCE_DATA_DIR, name), 'utf8')) as T[];

const cats = read<Breed>('breeds/cats.json');
const dogs = [...read<Breed>('breeds/dogs-1.json'), ...read<Breed>('breeds/dogs-2.json')];
const horses = read<Breed>('breeds/horses.json');
const breeds = [...cats, ...dogs, ...horses];
const facts = [...read<Fact>('facts/cats.json'), ...read<Fact>('facts/dogs.json'), ...read<Fact>('facts/horses.json')];
const tips = read<HealthTip>('health-tips.json');
const colours = read<SpeciesColour>('colours/species.json');
const categories = read<{ id: string }>('categories.json');
const countries = read<Country>('legislation/countries.json');
const laws = read<Law>('legislation/laws.json');

const unique = (values: string[]) => {
  const seen = new Set<string>();
  return values.filter((value) => (seen.has(value) ? true : (seen.add(value), false)));
};

describe('reference data files', () => {
  it('validates every record of every file against its schema', () => {
    const problems: string[] = [];
    for (const name of DATA_FILE_NAMES) {
      const records = read<unknown>(name);
      expect(Array.isArray(records), name).toBe(true);
      records.forEach((record, index) => {
        for (const error of Value.Errors(DATA_FILES[name], record)) problems.push(`${name}[${index}]${error.path}: ${error.message}`);
      });
    }
    expect(problems).toEqual([]);
  });

  it('has at least the required number of records', () => {
    expect(cats.length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.cats);
    expect(dogs.length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.dogs);
    expect(horses.length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.horses);
    expect(facts.length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.facts);
    expect(tips.length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.healthTips);
    const countriesWithLaws = new Set(laws.map((law) => law.country_iso_code));
    expect(countries.filter((country) => countriesWithLaws.has(country.iso_code)).length).toBeGreaterThanOrEqual(MINIMUM_COUNTS.countriesWithLaws);
  });

  it('keeps each file to its species', () => {
    expect(cats.every((breed) => breed.species_id === '1')).toBe(true);
    expect(dogs.every((breed) => breed.species_id === '2')).toBe(true);
    expect(horses.every((breed) => breed.species_id === '3')).toBe(true);
  });

  it('uses every id once (breed ids across all species)', () => {
    expect(unique(breeds.map((breed) => breed.id))).toEqual([]);
    expect(unique(facts.map((fact) => fact.id))).toEqual([]);
    expect(unique(tips.map((tip) => tip.id))).toEqual([]);
    expect(unique(categories.map((category) => category.id))).toEqual([]);
    expect(unique(countries.map((country) => country.iso_code))).toEqual([]);
    expect(unique(laws.map((law) => String(law.id)))).toEqual([]);
    const colourIds = [...colours.map((colour) => colour.id), ...breeds.flatMap((breed) => breed.colours.map((colour) => `${breed.id}-${colour.code.toLowerCase()}`))];
    expect(unique(colourIds)).toEqual([]);
  });

  it('names only existing breeds of the right species in facts, tips, colours and laws', () => {
    const species = new Map(breeds.map((breed) => [breed.id, breed.species_id]));
    const wrong: string[] = [];
    for (const fact of facts) if (fact.breed_id !== null && species.get(fact.breed_id) !== String(fact.species_id)) wrong.push(`fact ${fact.id} → ${fact.breed_id}`);
    for (const tip of tips) if (tip.breed_id !== null && species.get(tip.breed_id) !== String(tip.species_id)) wrong.push(`tip ${tip.id} → ${tip.breed_id}`);
    for (const colour of colours) if (colour.breed_id !== null) wrong.push(`colour ${colour.id} → ${colour.breed_id}`);
    const countryCodes = new Set(countries.map((country) => country.iso_code));
    for (const law of laws) {
      if (!countryCodes.has(law.country_iso_code)) wrong.push(`law ${law.id} → country ${law.country_iso_code}`);
      for (const banned of law.banned_breeds) {
        if (species.get(banned.breed_id) !== (law.animal_type === 'cat' ? '1' : '2')) wrong.push(`law ${law.id} → ${banned.breed_id}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives every breed exactly one primary venom code, each one of its colours', () => {
    const wrong: string[] = [];
    for (const breed of breeds) {
      const codes = new Set(breed.colours.map((colour) => colour.code));
      for (const venom of breed.venom_codes) if (!codes.has(venom.code)) wrong.push(`${breed.id}: ${venom.code} not a colour`);
      const primaries = breed.venom_codes.filter((venom) => venom.is_primary).length;
      if (primaries !== 1) wrong.push(`${breed.id}: ${primaries} primary codes`);
    }
    expect(wrong).toEqual([]);
  });

  it('has every translatable field in English, Spanish, French and German', () => {
    const expected: [string, { id: string }[], readonly string[]][] = [
      ['breed', breeds, ['name', 'description', 'temperament', 'origin']],
      ['fact', facts, ['title', 'fact']],
      ['health tip', tips, ['title', 'description']],
    ];
    const missing: string[] = [];
    for (const [kind, records, fields] of expected) {
      for (const record of records) {
        const text = record as unknown as Record<string, unknown> & { translations?: Record<string, Record<string, unknown> | undefined> };
        for (const field of fields) {
          if (typeof text[field] !== 'string' || (text[field] as string).trim() === '') missing.push(`${kind} ${record.id} en ${field}`);
          for (const lang of ['es', 'fr', 'de']) {
            const value = text.translations?.[lang]?.[field];
            if (typeof value !== 'string' || value.trim() === '') missing.push(`${kind} ${record.id} ${lang} ${field}`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
    expect(TRANSLATABLE_FIELDS).toEqual({ breed: expected[0][2], fact: expected[1][2], healthtip: expected[2][2] });
  });

  it('translates each breed temperament adjective the same way everywhere', () => {
    const seen = new Map<string, string>();
    const clashes: string[] = [];
    for (const breed of breeds) {
      const english = breed.temperament.split(', ');
      for (const lang of ['es', 'fr', 'de'] as const) {
        const translated = breed.translations[lang].temperament.split(', ');
        if (translated.length !== english.length) {
          clashes.push(`${breed.id} ${lang}: ${english.length} adjectives in English, ${translated.length} translated`);
          continue;
        }
        english.forEach((word, index) => {
          const key = `${lang}:${word}`;
          const previous = seen.get(key);
          if (previous !== undefined && previous !== translated[index]) clashes.push(`${key} → ${previous} / ${translated[index]} (${breed.id})`);
          seen.set(key, translated[index]);
        });
      }
    }
    expect(clashes).toEqual([]);
  });

  it('passes the import’s own validation', async () => {
    const { dataset, problems } = await loadDataset();
    expect(problems).toEqual([]);
    expect(dataset?.breeds).toHaveLength(breeds.length);
  });
});

describe('the import’s validator', () => {
  const valid = async (): Promise<Dataset> => {
    const { dataset } = await loadDataset();
    return structuredClone(dataset as Dataset);
  };

  it('finds duplicate ids, unknown breeds and venom codes that break the rules', async () => {
    const data = await valid();
    data.breeds.push({ ...data.breeds[0] });
    data.facts[0] = { ...data.facts[0], breed_id: 'no-such-breed' };
    data.healthTips[0] = { ...data.healthTips[0], breed_id: data.breeds.find((breed) => breed.species_id !== String(data.healthTips[0].species_id))?.id ?? 'x' };
    const second = data.breeds[1];
    second.venom_codes = [...second.venom_codes.map((venom) => ({ ...venom, is_primary: true })), { code: 'NOT-A-COLOUR', name: 'x', is_primary: true }];
    data.laws[0] = { ...data.laws[0], country_iso_code: 'ZZ' };
    const problems = integrityProblems(data);
    expect(problems).toContain(`breed id '${data.breeds[0].id}' is used more than once`);
    expect(problems).toContain(`fact ${data.facts[0].id}: unknown breed 'no-such-breed'`);
    expect(problems.some((problem) => problem.startsWith(`health tip ${data.healthTips[0].id}: breed`))).toBe(true);
    expect(problems).toContain(`breed ${second.id}: venom code NOT-A-COLOUR is not one of its colours`);
    expect(problems.some((problem) => problem.startsWith(`breed ${second.id}:`) && problem.includes('primary venom codes'))).toBe(true);
    expect(problems).toContain(`law ${data.laws[0].id}: unknown country ZZ`);
  });

  it('fails the import naming each record that misses a language of a translatable field', () => {
    const raw = Object.fromEntries(DATA_FILE_NAMES.map((name) => [name, readFileSync(join(REFERENCE_DATA_DIR, name), 'utf8')])) as Record<DataFile, string>;
    const edit = <T>(name: DataFile, change: (records: T[]) => void) => {
      const records = JSON.parse(raw[name]) as T[];
      change(records);
      raw[name] = JSON.stringify(records);
    };
    edit<Fact>('facts/dogs.json', (records) => {
      delete (records[2].translations as Partial<Fact['translations']>).de;
      delete (records[5] as Partial<Fact>).translations;
    });
    edit<Breed>('breeds/horses.json', (records) => {
      records[1].translations.es.temperament = ' ';
      records[3].origin = '';
    });
    edit<HealthTip>('health-tips.json', (records) => {
      delete (records[0].translations.fr as Partial<HealthTip['translations']['fr']>).description;
    });
    const dogFacts = JSON.parse(raw['facts/dogs.json']) as Fact[];
    const horses = JSON.parse(raw['breeds/horses.json']) as Breed[];
    const tip = (JSON.parse(raw['health-tips.json']) as HealthTip[])[0];

    const { dataset, problems } = parseDataset(raw, 'test');
    expect(dataset).toBeNull();
    expect(problems).toEqual(
      expect.arrayContaining([
        `facts/dogs.json[2] (${dogFacts[2].id}): title has no de text`,
        `facts/dogs.json[2] (${dogFacts[2].id}): fact has no de text`,
        `facts/dogs.json[5] (${dogFacts[5].id}): title has no es text`,
        `facts/dogs.json[5] (${dogFacts[5].id}): fact has no fr text`,
        `breeds/horses.json[1] (${horses[1].id}): temperament has no es text`,
        `breeds/horses.json[3] (${horses[3].id}): origin has no en text`,
        `health-tips.json[0] (${tip.id}): description has no fr text`,
      ]),
    );
    // Each missing text is named once, not repeated as a generic schema error on the translations.
    expect(problems.filter((problem) => problem.includes('/translations'))).toEqual([]);
    expect(problems.filter((problem) => problem.startsWith(`facts/dogs.json[5] `))).toHaveLength(6);
  });

  it('accepts the data as authored', async () => {
    expect(integrityProblems(await valid())).toEqual([]);
  });
});

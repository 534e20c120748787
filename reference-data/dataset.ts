import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { LANGUAGES, breedColourId, careTipId, speciesOfAnimalType } from '../domain/reference-data/vocabulary.ts';
import type { ReferenceKind } from '../domain/reference-data/record.ts';
import { PROJECT_ROOT } from '../infrastructure/project-root.ts';
import { DATA_FILES, TRANSLATABLE_FIELDS, type Breed, type Category, type Country, type Fact, type HealthTip, type Law, type SpeciesColour } from './schemas.ts';

/** The folder holding the authored data files (this file's folder in the sources' tree). */
export const REFERENCE_DATA_DIR = join(PROJECT_ROOT, 'reference-data');

/**
 * Bump when the way records become events changes (content hash, record shape), so the next
 * start imports again even though the files did not change.
 */
export const IMPORT_FORMAT_VERSION = 1;

export type DataFile = keyof typeof DATA_FILES;
export const DATA_FILE_NAMES = Object.keys(DATA_FILES).sort() as DataFile[];

export type Dataset = {
  hash: string;
  breeds: Breed[];
  colours: SpeciesColour[];
  categories: Category[];
  facts: Fact[];
  healthTips: HealthTip[];
  countries: Country[];
  laws: Law[];
};

/** One record as the import hands it to its decider. */
export type ImportRecord = { kind: ReferenceKind; id: string; record: Record<string, unknown>; contentHash: string };

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** JSON with object keys sorted at every level: the same content always hashes the same. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
};

export const contentHash = (record: unknown): string => sha256(canonicalJson(record));

const readRaw = async (dir: string): Promise<Record<DataFile, Buffer>> =>
  Object.fromEntries(await Promise.all(DATA_FILE_NAMES.map(async (name) => [name, await readFile(join(dir, name))]))) as Record<DataFile, Buffer>;

const hashRaw = (raw: Record<DataFile, Buffer>): string => {
  const hash = createHash('sha256').update(`format ${IMPORT_FORMAT_VERSION}\n`);
  for (const name of DATA_FILE_NAMES) hash.update(`${name}\n`).update(raw[name]).update('\n');
  return hash.digest('hex');
};

/** The hash of the files as they are on disk: cheap (no parsing), used to skip an unchanged import. */
export const datasetHash = async (dir = REFERENCE_DATA_DIR): Promise<string> => hashRaw(await readRaw(dir));

const compiled = new Map<TSchema, TypeCheck<TSchema>>();
const checkerOf = (schema: TSchema): TypeCheck<TSchema> => {
  let checker = compiled.get(schema);
  if (!checker) compiled.set(schema, (checker = TypeCompiler.Compile(schema)));
  return checker;
};

const recordLabel = (name: DataFile, index: number, record: unknown): string =>
  `${name}[${index}]${record && typeof record === 'object' && 'id' in record ? ` (${String(record.id)})` : ''}`;

/** Which translatable kind of record each file holds (files not listed hold no translated text). */
const TRANSLATED_FILES: Partial<Record<DataFile, keyof typeof TRANSLATABLE_FIELDS>> = {
  'breeds/cats.json': 'breed',
  'breeds/dogs-1.json': 'breed',
  'breeds/dogs-2.json': 'breed',
  'breeds/horses.json': 'breed',
  'facts/cats.json': 'fact',
  'facts/dogs.json': 'fact',
  'facts/horses.json': 'fact',
  'health-tips.json': 'healthtip',
};

const isText = (value: unknown): boolean => typeof value === 'string' && value.trim().length > 0;

/**
 * Every translatable field of every record in all four languages: English in the field itself,
 * es/fr/de under `translations.<lang>.<field>`. One line per missing text, naming the record,
 * e.g. `facts/cats.json[4] (fact-cat-005): title has no de text`. Checked before the schemas
 * so a missing translation reads as such rather than as a generic schema error.
 */
export const translationProblems = (files: Partial<Record<DataFile, unknown>>): string[] => {
  const problems: string[] = [];
  for (const name of DATA_FILE_NAMES) {
    const kind = TRANSLATED_FILES[name];
    const records = files[name];
    if (!kind || !Array.isArray(records)) continue;
    records.forEach((record: unknown, index) => {
      if (!record || typeof record !== 'object') return;
      const fields = record as Record<string, unknown>;
      const translations = (fields.translations && typeof fields.translations === 'object' ? fields.translations : {}) as Record<string, unknown>;
      for (const field of TRANSLATABLE_FIELDS[kind]) {
        for (const lang of LANGUAGES) {
          const translated = translations[lang];
          const text =
            lang === 'en' ? fields[field] : translated && typeof translated === 'object' ? (translated as Record<string, unknown>)[field] : undefined;
          if (!isText(text)) problems.push(`${recordLabel(name, index, record)}: ${field} has no ${lang} text`);
        }
      }
    });
  }
  return problems;
};

/**
 * Schema problems of every record of every file, one line per problem (at most 5 per record).
 * `reported` names records whose translations were already reported, so their `/translations`
 * errors are not repeated.
 */
const schemaProblems = (files: Record<DataFile, unknown>, reported = new Set<string>()): string[] => {
  const problems: string[] = [];
  for (const name of DATA_FILE_NAMES) {
    const records = files[name];
    if (!Array.isArray(records)) {
      problems.push(`${name}: must be a JSON array`);
      continue;
    }
    const checker = checkerOf(DATA_FILES[name]);
    records.forEach((record, index) => {
      if (checker.Check(record)) return;
      const label = recordLabel(name, index, record);
      let shown = 0;
      for (const error of checker.Errors(record)) {
        if (reported.has(label) && error.path.startsWith('/translations')) continue;
        problems.push(`${label}${error.path || '/'}: ${error.message}`);
        if (++shown === 5) break;
      }
    });
  }
  return problems;
};

const duplicates = (values: string[]): string[] => {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) (seen.has(value) ? repeated : seen).add(value);
  return [...repeated];
};

/**
 * References between files and rules a record schema cannot express: ids unique (breed ids across
 * species), every breed id a fact, tip or law names exists (and is of the right species), every
 * venom code is one of the breed's colours and exactly one is primary, laws name known countries.
 */
export const integrityProblems = (data: Omit<Dataset, 'hash'>): string[] => {
  const problems: string[] = [];
  const breeds = new Map(data.breeds.map((breed) => [breed.id, breed]));
  const unique = (label: string, ids: string[]) => {
    for (const id of duplicates(ids)) problems.push(`${label} id '${id}' is used more than once`);
  };
  unique('breed', data.breeds.map((breed) => breed.id));
  unique('fact', data.facts.map((fact) => fact.id));
  unique('health tip', data.healthTips.map((tip) => tip.id));
  unique('category', data.categories.map((category) => category.id));
  unique('country', data.countries.map((country) => country.iso_code));
  unique('law', data.laws.map((law) => String(law.id)));
  unique('colour', [
    ...data.colours.map((colour) => colour.id),
    ...data.breeds.flatMap((breed) => breed.colours.map((colour) => breedColourId(breed.id, colour.code))),
  ]);
  unique('care tip', data.breeds.flatMap((breed) => breed.care_tips.map((_, index) => careTipId(breed.id, index + 1))));

  for (const breed of data.breeds) {
    for (const code of duplicates(breed.colours.map((colour) => colour.code))) problems.push(`breed ${breed.id}: colour code ${code} is listed twice`);
    for (const code of duplicates(breed.venom_codes.map((venom) => venom.code))) problems.push(`breed ${breed.id}: venom code ${code} is listed twice`);
    const colourCodes = new Set(breed.colours.map((colour) => colour.code));
    for (const venom of breed.venom_codes) {
      if (!colourCodes.has(venom.code)) problems.push(`breed ${breed.id}: venom code ${venom.code} is not one of its colours`);
    }
    const primaries = breed.venom_codes.filter((venom) => venom.is_primary).length;
    if (primaries !== 1) problems.push(`breed ${breed.id}: ${primaries} primary venom codes (exactly one needed)`);
    if (!breed.country_codes.split(',').includes(breed.country_code)) {
      problems.push(`breed ${breed.id}: country_code ${breed.country_code} is not in country_codes`);
    }
  }

  const checkBreedRef = (label: string, breedId: string | null, speciesId: string) => {
    if (breedId === null) return;
    const breed = breeds.get(breedId);
    if (!breed) problems.push(`${label}: unknown breed '${breedId}'`);
    else if (breed.species_id !== speciesId) problems.push(`${label}: breed '${breedId}' is not of species ${speciesId}`);
  };
  const factPrefix: Record<string, string> = { '1': 'fact-cat-', '2': 'fact-dog-', '3': 'fact-horse-' };
  for (const fact of data.facts) {
    checkBreedRef(`fact ${fact.id}`, fact.breed_id, String(fact.species_id));
    if (!fact.id.startsWith(factPrefix[String(fact.species_id)])) problems.push(`fact ${fact.id}: id does not match species ${fact.species_id}`);
  }
  for (const tip of data.healthTips) checkBreedRef(`health tip ${tip.id}`, tip.breed_id, String(tip.species_id));

  const speciesNames: Record<string, string> = { '1': 'cat', '2': 'dog', '3': 'horse' };
  for (const colour of data.colours) {
    if (!colour.id.startsWith(`${speciesNames[colour.species_id]}-`)) problems.push(`colour ${colour.id}: id does not start with its species`);
    if (colour.id !== breedColourId(speciesNames[colour.species_id], colour.code)) problems.push(`colour ${colour.id}: id does not match code ${colour.code}`);
  }

  const countries = new Set(data.countries.map((country) => country.iso_code));
  for (const law of data.laws) {
    if (!countries.has(law.country_iso_code)) problems.push(`law ${law.id}: unknown country ${law.country_iso_code}`);
    for (const banned of law.banned_breeds) checkBreedRef(`law ${law.id}`, banned.breed_id, speciesOfAnimalType(law.animal_type));
  }
  return problems;
};

/** Parses and validates the files; `dataset` is null when anything is wrong. */
export const parseDataset = (raw: Record<DataFile, Buffer | string>, hash: string): { dataset: Dataset | null; problems: string[] } => {
  const files = {} as Record<DataFile, unknown>;
  const problems: string[] = [];
  for (const name of DATA_FILE_NAMES) {
    try {
      files[name] = JSON.parse(raw[name].toString());
    } catch (error) {
      problems.push(`${name}: not valid JSON (${(error as Error).message})`);
    }
  }
  if (problems.length > 0) return { dataset: null, problems };
  const untranslated = translationProblems(files);
  problems.push(...untranslated, ...schemaProblems(files, new Set(untranslated.map((problem) => problem.slice(0, problem.indexOf(': '))))));
  if (problems.length > 0) return { dataset: null, problems };
  const list = (name: DataFile) => files[name] as unknown[];
  const data = {
    breeds: [...list('breeds/cats.json'), ...list('breeds/dogs-1.json'), ...list('breeds/dogs-2.json'), ...list('breeds/horses.json')] as Breed[],
    colours: files['colours/species.json'] as SpeciesColour[],
    categories: files['categories.json'] as Category[],
    facts: [...list('facts/cats.json'), ...list('facts/dogs.json'), ...list('facts/horses.json')] as Fact[],
    healthTips: files['health-tips.json'] as HealthTip[],
    countries: files['legislation/countries.json'] as Country[],
    laws: files['legislation/laws.json'] as Law[],
  } as Omit<Dataset, 'hash'>;
  problems.push(...integrityProblems(data));
  return problems.length > 0 ? { dataset: null, problems } : { dataset: { hash, ...data }, problems };
};

/** Reads, hashes, parses and validates the data files of `dir`. */
export const loadDataset = async (dir = REFERENCE_DATA_DIR): Promise<{ dataset: Dataset | null; problems: string[] }> => {
  const raw = await readRaw(dir).catch((error: Error) => error);
  if (raw instanceof Error) return { dataset: null, problems: [raw.message] };
  return parseDataset(raw, hashRaw(raw));
};

/** Every record of the dataset as its import command sees it, in a stable order. */
export const importRecords = (dataset: Omit<Dataset, 'hash'>): ImportRecord[] => {
  const records: ImportRecord[] = [];
  const add = (kind: ReferenceKind, id: string, record: object) =>
    records.push({ kind, id, record: record as Record<string, unknown>, contentHash: contentHash(record) });
  for (const country of dataset.countries) add('country', country.iso_code, country);
  for (const category of dataset.categories) add('category', category.id, category);
  for (const colour of dataset.colours) add('colour', colour.id, colour);
  for (const breed of dataset.breeds) add('breed', breed.id, breed);
  for (const fact of dataset.facts) add('fact', fact.id, fact);
  for (const tip of dataset.healthTips) add('healthtip', tip.id, tip);
  for (const law of dataset.laws) add('legislation', String(law.id), law);
  return records;
};

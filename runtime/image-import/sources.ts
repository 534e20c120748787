import { createReadStream } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { extname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { ImageAttribution } from '../../domain/images/attribution.ts';
import type { BreedMatcher } from './breeds.ts';
import { normaliseLicence } from './licence.ts';

/**
 * What an import reads: the photos of a folder, one entry at a time (never the whole listing in
 * memory), either from a manifest (CSV with a header row, or JSON lines) or from the folder's
 * layout `<breed id or name>/<file>`. An entry is then resolved against the reference breeds and
 * the licence list into a photo to import or a reason to skip it.
 */

/** The columns a manifest may have; `file` is required, relative to the imported folder. */
export const MANIFEST_COLUMNS = ['file', 'breed_ids', 'species_id', 'sub_id', 'public', 'license', 'author', 'source_url', 'title'] as const;
export type ManifestColumn = (typeof MANIFEST_COLUMNS)[number];

/** One photo as the manifest or the folder names it, before anything is checked. */
export type PhotoEntry = {
  /** Relative to the folder, `/`-separated. */
  file: string;
  /** Where it was named: `manifest.csv:12`, or the folder path. */
  origin: string;
  /** Breeds as written (ids or names); from the folder layout, the folder's name. */
  breeds: string[];
  /** The folder's breed did not match (folder layout): every photo in it is skipped. */
  fromFolder: boolean;
  species_id: string | null;
  sub_id: string | null;
  public: string | boolean | null;
  license: string | null;
  author: string | null;
  source_url: string | null;
  title: string | null;
};

/** A manifest that cannot be read at all (not a row: the whole file). */
export class ManifestError extends Error {}

/** Extensions taken from a folder without a manifest (the bytes decide the type afterwards). */
export const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.gif', '.webp']);

const text = (value: unknown): string | null => {
  if (value === undefined || value === null) return null;
  const trimmed = String(value).trim();
  return trimmed.length > 0 ? trimmed : null;
};

const breedList = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.map((item) => String(item).trim()).filter((item) => item.length > 0)
    : (text(value) ?? '')
        .split(/[,;|]/)
        .map((item) => item.trim())
        .filter((item) => item.length > 0);

const entryOf = (row: Record<string, unknown>, origin: string): PhotoEntry => ({
  file: String(row.file ?? '').trim().replaceAll('\\', '/'),
  origin,
  breeds: breedList(row.breed_ids),
  fromFolder: false,
  species_id: text(row.species_id),
  sub_id: text(row.sub_id),
  public: typeof row.public === 'boolean' ? row.public : text(row.public),
  license: text(row.license),
  author: text(row.author),
  source_url: text(row.source_url),
  title: text(row.title),
});

const checkColumns = (columns: string[], manifest: string): void => {
  const unknown = columns.filter((column) => !(MANIFEST_COLUMNS as readonly string[]).includes(column));
  if (unknown.length > 0) throw new ManifestError(`${manifest}: unknown column(s) ${unknown.join(', ')}; a manifest has ${MANIFEST_COLUMNS.join(', ')}`);
  if (!columns.includes('file')) throw new ManifestError(`${manifest}: no \`file\` column`);
};

/** The rows of a CSV manifest (header row first; quoted fields, a BOM and CRLF are fine), streamed. */
async function* csvEntries(manifest: string): AsyncGenerator<PhotoEntry> {
  const parser = createReadStream(manifest).pipe(
    parse({
      bom: true,
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      columns: (header: string[]) => {
        const columns = header.map((column) => column.trim().toLowerCase());
        checkColumns(columns, manifest);
        return columns;
      },
      info: true,
    }),
  );
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    yield entryOf(record, `${manifest}:${info.lines}`);
  }
}

/** The rows of a JSON-lines manifest (one object per line; blank lines skipped), streamed. */
async function* jsonlEntries(manifest: string): AsyncGenerator<PhotoEntry> {
  const lines = createInterface({ input: createReadStream(manifest), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim().length === 0) continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new ManifestError(`${manifest}:${number}: not JSON (${(error as Error).message})`);
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new ManifestError(`${manifest}:${number}: each line must be a JSON object`);
    checkColumns(Object.keys(row), manifest);
    yield entryOf(row as Record<string, unknown>, `${manifest}:${number}`);
  }
}

/** A manifest's entries: `.jsonl`/`.ndjson` are JSON lines, anything else CSV. */
export const manifestEntries = (manifest: string): AsyncGenerator<PhotoEntry> =>
  /\.(jsonl|ndjson)$/i.test(manifest) ? jsonlEntries(manifest) : csvEntries(manifest);

/** Files under `dir`, depth first, in directory order, streamed (opendir). */
async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of await opendir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else if (entry.isFile()) yield path;
  }
}

/**
 * The folder layout: `<folder>/<breed>/<…>/<file>` names the breed by its first folder (any depth
 * below it); files directly in `<folder>` have no breed. Only photo extensions are taken.
 */
export async function* folderEntries(folder: string): AsyncGenerator<PhotoEntry> {
  for await (const path of walk(folder)) {
    if (!PHOTO_EXTENSIONS.has(extname(path).toLowerCase())) continue;
    const file = relative(folder, path).split(sep).join('/');
    const parts = file.split('/');
    yield {
      file,
      origin: folder,
      breeds: parts.length > 1 ? [parts[0]] : [],
      fromFolder: parts.length > 1,
      species_id: null,
      sub_id: null,
      public: null,
      license: null,
      author: null,
      source_url: null,
      title: null,
    };
  }
}

export type SkipReason = 'already_imported' | 'duplicate' | 'unreadable' | 'unsafe' | 'unknown_breed' | 'unknown_licence' | 'invalid_row';

/** A photo ready to import: its path, breeds (ids) and what the upload records. */
export type PlannedPhoto = {
  file: string;
  path: string;
  origin: string;
  breed_ids: string[];
  species_id: string | null;
  sub_id: string | null;
  public: boolean;
  attribution: ImageAttribution | null;
};

export type Resolved = { photo: PlannedPhoto } | { skip: SkipReason; file: string; origin: string; detail: string; folder?: string };

const parseBoolean = (value: string | boolean | null): boolean | null => {
  if (value === null || typeof value === 'boolean') return value ?? true;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'y'].includes(lower)) return true;
  if (['false', '0', 'no', 'n'].includes(lower)) return false;
  return null;
};

const isHttpUrl = (value: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

const LIMITS = { author: 500, title: 500, source_url: 2000, sub_id: 255 } as const;

/**
 * An entry checked: the file stays inside the folder, the breeds match reference breeds (of
 * `species_id` when given), the licence names an SPDX licence, `public` is a boolean, the
 * source is an http(s) URL. A photo without a licence is imported private whatever `public` says.
 */
export const resolveEntry = (entry: PhotoEntry, folder: string, breeds: BreedMatcher): Resolved => {
  const skip = (reason: SkipReason, detail: string): Resolved => ({ skip: reason, file: entry.file, origin: entry.origin, detail });
  if (!entry.file) return skip('invalid_row', 'no file named');
  const path = normalize(join(folder, entry.file));
  const inside = relative(folder, path);
  if (isAbsolute(entry.file) || inside.startsWith('..') || isAbsolute(inside)) return skip('invalid_row', 'the file is outside the imported folder');
  if (entry.species_id !== null && !/^[0-9]{1,4}$/.test(entry.species_id)) return skip('invalid_row', `species_id '${entry.species_id}' is not a species id`);
  const publicFlag = parseBoolean(entry.public);
  if (publicFlag === null) return skip('invalid_row', `public '${String(entry.public)}' is not true or false`);
  for (const field of ['author', 'title', 'source_url', 'sub_id'] as const) {
    const value = entry[field];
    if (value !== null && value.length > LIMITS[field]) return skip('invalid_row', `${field} is longer than ${LIMITS[field]} characters`);
  }
  if (entry.source_url !== null && !isHttpUrl(entry.source_url)) return skip('invalid_row', `source_url '${entry.source_url}' is not an http(s) URL`);
  const breedIds: string[] = [];
  for (const name of entry.breeds) {
    const match = breeds.match(name, entry.species_id);
    if ('problem' in match) {
      const detail =
        match.problem === 'ambiguous'
          ? `breed '${name}' matches several breeds (${match.candidates.join(', ')}): give its id or species_id`
          : `no breed with the id, name or alternative name '${name}'${entry.species_id ? ` for species ${entry.species_id}` : ''}`;
      return { ...skip('unknown_breed', detail), ...(entry.fromFolder ? { folder: name } : {}) };
    }
    if (!breedIds.includes(match.id)) breedIds.push(match.id);
  }
  if (breedIds.length > 20) return skip('invalid_row', 'at most 20 breeds per photo');
  let license: string | null = null;
  if (entry.license !== null) {
    license = normaliseLicence(entry.license);
    if (license === null) return skip('unknown_licence', `'${entry.license}' names no SPDX licence (give an SPDX id such as CC-BY-SA-4.0, or a full Creative Commons name with its version)`);
  }
  const attribution: ImageAttribution = { license, author: entry.author, source_url: entry.source_url, title: entry.title };
  const known = attribution.license || attribution.author || attribution.source_url || attribution.title;
  return {
    photo: {
      file: entry.file,
      path,
      origin: entry.origin,
      breed_ids: breedIds,
      species_id: entry.species_id,
      sub_id: entry.sub_id,
      // never public without a licence
      public: publicFlag && license !== null,
      attribution: known ? attribution : null,
    },
  };
};

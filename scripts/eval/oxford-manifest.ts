/**
 * The import manifest of the Oxford-IIIT Pet sample (../shared/datasets/oxford-pets-sample/, see its
 * README): one row per photo of labels.csv — the file, its breed by the dataset's breed name (the
 * importer matches names; the two whose reference-data name differs by id), its species, and its
 * licence and source as the README gives them (CC BY-SA 4.0, the Oxford-IIIT Pet Dataset; the
 * photos' authors are not recorded there). The photo import, the vision evaluation, the bench and
 * the import's end-to-end test all read the sample through it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OXFORD_LICENSE = 'CC-BY-SA-4.0';
export const OXFORD_SOURCE_URL = 'https://www.robots.ox.ac.uk/~vgg/data/pets/';
/** Oxford's breed names that name no reference breed as they are: the reference breed's id. */
const RENAMED: Record<string, string> = { german_shorthaired: 'german-shorthaired-pointer', wheaten_terrier: 'soft-coated-wheaten-terrier' };
const SPECIES_ID: Record<string, string> = { cat: '1', dog: '2' };

export type OxfordPhoto = { name: string; breed: string; species: string };

/** The sample's photos as labels.csv lists them. */
export const oxfordPhotos = (dataset: string): OxfordPhoto[] => {
  const [header, ...rows] = readFileSync(join(dataset, 'labels.csv'), 'utf8').trim().split(/\r?\n/).map((line) => line.split(','));
  return rows.map((row) => Object.fromEntries(header.map((key, i) => [key, row[i]]))).map((row) => ({ name: row.image_name, breed: row.breed, species: row.species }));
};

const csvField = (value: string): string => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** Writes the manifest of `photos` (default: all of the sample) to `path` (CSV); the folder to import is `dataset`. */
export const writeOxfordManifest = (dataset: string, path: string, photos: readonly OxfordPhoto[] = oxfordPhotos(dataset)): string => {
  const lines = ['file,breed_ids,species_id,license,source_url,title'];
  for (const photo of photos) {
    const breed = RENAMED[photo.breed] ?? photo.breed;
    lines.push([`images/${photo.name}.jpg`, breed, SPECIES_ID[photo.species] ?? '', OXFORD_LICENSE, OXFORD_SOURCE_URL, `Oxford-IIIT Pet: ${photo.name}`].map(csvField).join(','));
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

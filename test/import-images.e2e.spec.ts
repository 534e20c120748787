/**
 * The photo import end to end: `npm run import:images` (the CLI, in a child process, as an operator
 * runs it) imports the Oxford-IIIT Pet sample (../shared/datasets/oxford-pets-sample/, 370 photos,
 * 37 breeds, CC BY-SA 4.0) with its manifest into a fresh data dir, on the real models: every photo
 * imported; a re-run imports none (skipped: already imported); the service started on that data
 * dir answers `images/search?breed_ids=abys` with the Abyssinian photos only, public, each with
 * its attribution, and `license=` filters by licence family.
 * IMPORT_E2E_PHOTOS=n imports n photos spread over the sample (development); CI imports all. The
 * CLI runs the projections itself (--run-projections: no service runs while it imports, on the
 * embedded store and, with E2E_ADAPTERS=production, on MongoDB alike).
 * Skipped when the models or the dataset are missing.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveModelDir } from '../infrastructure/vision/index.ts';
import { OXFORD_LICENSE, OXFORD_SOURCE_URL, oxfordPhotos, writeOxfordManifest } from '../scripts/eval/oxford-manifest.ts';
import { productionProcessEnv, startTestService, type TestService } from './service.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DATASET = fileURLToPath(new URL('../../shared/datasets/oxford-pets-sample/', import.meta.url));
const modelsInstalled = existsSync(join(resolveModelDir(), 'manifest.json'));
const datasetThere = existsSync(join(DATASET, 'labels.csv'));
if (!modelsInstalled || !datasetThere) console.warn(`import-images.e2e: skipped (${!modelsInstalled ? 'models not installed: npm run models' : `no ${DATASET}`})`);

/** The whole sample, or IMPORT_E2E_PHOTOS photos spread over it with every Abyssinian one. */
const selectedPhotos = () => {
  const all = datasetThere ? oxfordPhotos(DATASET) : [];
  const limit = Number(process.env.IMPORT_E2E_PHOTOS ?? 0);
  if (!(limit > 0 && limit < all.length)) return all;
  const step = all.length / limit;
  const spread = Array.from({ length: limit }, (_, i) => all[Math.floor(i * step)]);
  return [...new Set([...spread, ...all.filter((photo) => photo.breed === 'Abyssinian')])];
};

type Summary = { imported: number; public: number; private: number; skipped: Record<string, number>; by_species: Record<string, number> };
type Line = { type: 'photo'; status: string; reason?: string; file: string } | ({ type: 'summary' } & Summary);
type Attributed = { id: string; breed_ids: string[]; species_id: string | null; approved: number; attribution: { license: string | null; author: string | null; source_url: string | null; title: string | null } | null };

describe.runIf(modelsInstalled && datasetThere)('npm run import:images', () => {
  const photos = selectedPhotos();
  const abyssinians = photos.filter((photo) => photo.breed === 'Abyssinian').map((photo) => `Oxford-IIIT Pet: ${photo.name}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'import-images-'));
  const manifest = writeOxfordManifest(DATASET, join(dataDir, 'oxford-manifest.csv'), photos);
  let service: TestService | undefined;

  const importSample = async (): Promise<{ lines: Line[]; summary: Summary }> => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'runtime/import-images-cli.ts', DATASET, '--manifest', manifest, '--json', '--concurrency', '2', '--run-projections'], {
      cwd: ROOT,
      env: { ...process.env, ...productionProcessEnv(dataDir), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Line);
    const summary = lines.at(-1);
    if (summary?.type !== 'summary') throw new Error(`no summary line: ${stdout.slice(-500)}`);
    return { lines, summary };
  };

  beforeAll(() => {
    expect(photos.length).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('imports every photo of the sample, public with its licence, cats and dogs', async () => {
    const { lines, summary } = await importSample();
    const skipped = lines.filter((line) => line.type === 'photo' && line.status === 'skipped');
    expect(skipped, JSON.stringify(skipped.slice(0, 5))).toEqual([]);
    expect(summary.imported).toBe(photos.length);
    expect(summary.public).toBe(photos.length);
    expect(lines.filter((line) => line.type === 'photo')).toHaveLength(photos.length);
    expect(summary.by_species['1'] ?? 0).toBeGreaterThan(0);
    expect(summary.by_species['2'] ?? 0).toBeGreaterThan(0);
  }, 60 * 60_000);

  it('a re-run imports nothing: every photo is skipped as already imported', async () => {
    const { summary } = await importSample();
    expect(summary.imported).toBe(0);
    expect(summary.skipped.already_imported).toBe(photos.length);
  }, 10 * 60_000);

  it('the service on that data dir finds the Abyssinian photos by breed, with their attribution, and filters by licence family', async () => {
    service = await startTestService({}, dataDir);
    const { api_key: key } = await service.createAccount({ name: 'Reader' });
    const search = async (query: string) => {
      const answer = await service!.request('GET', `/v1/images/search?limit=25&order=ASC&${query}`, { key });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body as Attributed[];
    };
    const abys = await search('breed_ids=abys');
    expect(abys.map((image) => image.attribution?.title).sort()).toEqual([...abyssinians].sort());
    for (const image of abys) {
      expect(image.breed_ids).toEqual(['abys']);
      expect(image.approved).toBe(1);
      expect(image.attribution).toEqual({ license: OXFORD_LICENSE, author: null, source_url: OXFORD_SOURCE_URL, title: expect.stringMatching(/^Oxford-IIIT Pet: Abyssinian_\d+$/) });
    }
    expect(await search('breed_ids=abys&license=cc-by-sa')).toHaveLength(abys.length);
    expect(await search('breed_ids=abys&license=cc0,cc-by')).toEqual([]);
    const refused = await service.request('GET', '/v1/images/search?license=gpl', { key });
    expect(refused.status).toBe(400);
    // the same attribution on the image itself
    const one = await service.request('GET', `/v1/images/${abys[0].id}`, { key });
    expect((one.body as Attributed).attribution).toEqual(abys[0].attribution);
  }, 5 * 60_000);

  it('every breed of the sample gets a reference image from the import, embedded in the breed as `image`', async () => {
    service ??= await startTestService({}, dataDir);
    const { api_key: key } = await service.createAccount({ name: 'Breeds reader' });
    const breedIds = new Set<string>();
    for (let page = 0; page < 100; page++) {
      const answer = await service.request('GET', `/v1/images/search?limit=25&order=ASC&page=${page}`, { key });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const images = answer.body as Attributed[];
      for (const image of images) for (const id of image.breed_ids) breedIds.add(id);
      if (images.length < 25) break;
    }
    expect(breedIds.size).toBe(new Set(photos.map((photo) => photo.breed)).size);
    for (const id of breedIds) {
      const answer = await service.request('GET', `/v1/breeds/${id}`, { key });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const breed = answer.body as { reference_image_id: string | null; image?: { id: string; breed_ids: string[] } | null };
      expect(breed.reference_image_id, `breed ${id}`).not.toBeNull();
      expect(breed.image?.id, `breed ${id}`).toBe(breed.reference_image_id);
      expect(breed.image?.breed_ids, `breed ${id}`).toContain(id);
    }
  }, 5 * 60_000);
});

/**
 * The photo import in-process on a fresh embedded store, with the vision double (test/vision-double.ts:
 * an orange patch is a cat, blue a dog, mostly red unsafe): what is imported, what is skipped and
 * why, a crash mid-pipeline finished by the next run, re-runs importing nothing, licensed photos
 * published through ImagePublished and unlicensed ones kept private, and the events an auditor sees.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../infrastructure/config.ts';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import { CATALOGUE_ACCOUNT_ID } from '../../domain/accounts/account.ts';
import { CAT_RGB, DOG_RGB, UNSAFE_RGB, visionDouble } from '../../test/vision-double.ts';
import { importImages, type PhotoOutcome } from './import.ts';
import { openImportSession, type ImportSession } from './session.ts';

const photo = (rgb: { r: number; g: number; b: number }, seed: number) =>
  sharp({ create: { width: 160, height: 120, channels: 3, background: { r: seed, g: 250 - seed, b: 200 } } })
    .composite([{ input: { create: { width: 100, height: 80, channels: 3, background: rgb } }, left: 30, top: 20 }])
    .png()
    .toBuffer();

describe('importImages', () => {
  const root = mkdtempSync(join(tmpdir(), 'import-int-'));
  const folder = join(root, 'photos');
  const licensed = join(root, 'licensed');
  const vision = visionDouble();
  let session: ImportSession;
  const run = async (options: { folder?: string; manifest?: string; concurrency?: number } = {}) => {
    const outcomes: PhotoOutcome[] = [];
    const summary = await importImages(session, { folder, ...options, onOutcome: (outcome) => outcomes.push(outcome) });
    return { summary, outcomes, byFile: new Map(outcomes.map((outcome) => [outcome.file, outcome])) };
  };

  beforeAll(async () => {
    for (const dir of ['abys', 'beagle', 'Unicorn']) mkdirSync(join(folder, dir), { recursive: true });
    mkdirSync(licensed, { recursive: true });
    const cat = await photo(CAT_RGB, 10);
    writeFileSync(join(folder, 'abys', 'cat.png'), cat);
    writeFileSync(join(folder, 'abys', 'cat-copy.png'), cat);
    writeFileSync(join(folder, 'beagle', 'dog.png'), await photo(DOG_RGB, 20));
    writeFileSync(join(folder, 'abys', 'red.png'), await sharp({ create: { width: 100, height: 100, channels: 3, background: UNSAFE_RGB } }).png().toBuffer());
    writeFileSync(join(folder, 'abys', 'broken.jpg'), 'not an image at all');
    writeFileSync(join(folder, 'Unicorn', 'odd.png'), await photo(CAT_RGB, 30));
    writeFileSync(join(root, 'manifest.jsonl'), [
      JSON.stringify({ file: 'a.png', breed_ids: 'abys', license: 'CC BY 4.0', author: 'Ann', source_url: 'https://example.org/a', title: 'A' }),
      JSON.stringify({ file: 'b.png', breed_ids: ['beagle'], public: true }),
      JSON.stringify({ file: 'c.png', license: 'CC0', public: false }),
    ].join('\n'));
    writeFileSync(join(licensed, 'a.png'), await photo(CAT_RGB, 40));
    writeFileSync(join(licensed, 'b.png'), await photo(DOG_RGB, 50));
    writeFileSync(join(licensed, 'c.png'), await photo(CAT_RGB, 60));
    session = await openImportSession({ ...loadConfig({}), dataDir: join(root, 'data') }, { vision, logger: pino({ level: 'silent' }) });
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const uploadedIds = async () =>
    (await session.eventStore.readAll({ maxCount: 100_000 })).filter((event) => event.type === 'ImageUploaded').map((event) => (event.data as { image_id: string }).image_id);
  const typesOf = async (imageId: string) => (await session.eventStore.readStream(`image-${imageId}`)).map((event) => event.type);

  it('stops at a model crash; the next run finishes the photo it had started and imports the rest, skipping with reasons', async () => {
    vision.failNext = 1;
    await expect(run({ concurrency: 1 })).rejects.toThrow(/told to fail/);
    const started = await uploadedIds();
    expect(started).toHaveLength(1);
    expect(await typesOf(started[0])).toEqual(['ImageUploaded']);

    const { summary, byFile } = await run({ concurrency: 2 });
    expect(await typesOf(started[0])).toEqual(expect.arrayContaining(['ImageUploaded', 'ImageValidated', 'ImageLabelled']));
    expect(summary.imported).toBe(2);
    expect(summary.by_species).toEqual({ '1': 1, '2': 1 });
    expect(summary.private).toBe(2); // no licence: never public
    expect(byFile.get('beagle/dog.png')).toMatchObject({ status: 'imported', species_id: '2', public: false, breed_ids: ['beagle'] });
    expect(byFile.get('abys/red.png')).toMatchObject({ status: 'skipped', reason: 'unsafe' });
    expect(byFile.get('abys/broken.jpg')).toMatchObject({ status: 'skipped', reason: 'unreadable' });
    expect(byFile.get('Unicorn/odd.png')).toMatchObject({ status: 'skipped', reason: 'unknown_breed', folder: 'Unicorn' });
    expect(summary.unknown_folders).toEqual(['Unicorn']);
    const copies = [byFile.get('abys/cat.png'), byFile.get('abys/cat-copy.png')];
    expect(copies.map((outcome) => outcome?.status).sort()).toEqual(['imported', 'skipped']);
    expect(copies.find((outcome) => outcome?.status === 'skipped')).toMatchObject({ reason: 'duplicate' });
  }, 120_000);

  it('a re-run imports nothing', async () => {
    const before = await session.eventStore.headPosition();
    const { summary } = await run();
    expect(summary.imported).toBe(0);
    expect(summary.skipped).toMatchObject({ already_imported: 3, duplicate: 1, unreadable: 1, unknown_breed: 1 });
    expect(await session.eventStore.headPosition()).toBe(before);
  }, 120_000);

  it('licensed photos become public through ImagePublished, with their attribution; unlicensed or public=false ones stay private', async () => {
    const { summary, byFile } = await run({ folder: licensed, manifest: join(root, 'manifest.jsonl') });
    expect(summary).toMatchObject({ imported: 3, public: 1, private: 2 });
    const a = byFile.get('a.png') as Extract<PhotoOutcome, { status: 'imported' }>;
    expect(a).toMatchObject({ public: true, breed_ids: ['abys'] });
    expect(await typesOf(a.image_id)).toEqual(['ImageUploaded', 'ImageValidated', 'ImageLabelled', 'ImagePublished']);
    expect(byFile.get('b.png')).toMatchObject({ public: false });
    expect(byFile.get('c.png')).toMatchObject({ public: false });
    await session.catchUp();
    const images = session.readStore.collection<ImageDoc>(Collections.images);
    expect(await images.get(a.image_id)).toMatchObject({
      public: true,
      account_id: CATALOGUE_ACCOUNT_ID,
      attribution: { license: 'CC-BY-4.0', author: 'Ann', source_url: 'https://example.org/a', title: 'A' },
      license_family: 'cc-by',
    });
    expect((await images.find({ license_family: 'cc0' })).map((doc) => [doc.original_filename, doc.public])).toEqual([['c.png', false]]);
    // auditors see an upload of the catalogue account by the import, and the pipeline's steps caused by it
    const stream = await session.eventStore.readStream(`image-${a.image_id}`);
    expect(stream.map((event) => [event.type, event.metadata.actor, event.metadata.account_id])).toEqual([
      ['ImageUploaded', 'system:image-import', CATALOGUE_ACCOUNT_ID],
      ['ImageValidated', 'system:image-validation', CATALOGUE_ACCOUNT_ID],
      ['ImageLabelled', 'system:image-labelling', CATALOGUE_ACCOUNT_ID],
      ['ImagePublished', 'system:image-import', CATALOGUE_ACCOUNT_ID],
    ]);
    expect(stream[1].metadata.causation_id).toBe(stream[0].id);
    // the catalogue account: opened once by the import, no key
    const account = await session.eventStore.readStream(`account-${CATALOGUE_ACCOUNT_ID}`);
    expect(account.map((event) => [event.type, (event.data as { kind?: string }).kind])).toEqual([['AccountOpened', 'catalogue']]);
  }, 120_000);
});

/**
 * Breed suggestions learnt from the catalogue, end to end on the real models: photos of two cat
 * breeds the ImageNet classifier has no class for (Birman, Bombay; Oxford-IIIT Pet sample, CC BY-SA
 * 4.0, read from ../shared/datasets at test time) are uploaded with their `breed_ids`; a held-out
 * photo uploaded afterwards has the right breed suggested first. Another account's private labelled
 * photos change nothing in the caller's suggestions, and do change their own account's. An upload
 * that nearly duplicates one of the same account's images carries `duplicate_of`.
 * Skipped when the models or the dataset are missing, except in CI where the models must be there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveModelDir } from '../infrastructure/vision/index.ts';
import { ADMIN_KEY, startTestService, type TestService } from './service.ts';

const IMAGES = fileURLToPath(new URL('../../shared/datasets/oxford-pets-sample/images/', import.meta.url));
const photo = (name: string) => readFileSync(join(IMAGES, `${name}.jpg`));
const BIRMAN = ['Birman_121', 'Birman_125', 'Birman_142', 'Birman_144', 'Birman_149'];
const BOMBAY = ['Bombay_10', 'Bombay_121', 'Bombay_123', 'Bombay_125', 'Bombay_140'];
const modelsInstalled = existsSync(join(resolveModelDir(), 'manifest.json'));
const datasetThere = existsSync(join(IMAGES, 'Birman_169.jpg'));
if (!modelsInstalled || !datasetThere) console.warn(`breed-suggestions.e2e: skipped (${!modelsInstalled ? 'models not installed: npm run models' : `no ${IMAGES}`})`);

type Suggested = { status: number; body: { id: string; duplicate_of: string | null; species_id: string | null; suggested_breed_ids: string[]; suggested_breeds: { id: string; confidence: number | null }[] } };

describe.runIf(modelsInstalled && datasetThere)('breed suggestions learnt from labelled uploads', () => {
  let service: TestService;
  let alice = '';
  let bob = '';
  /** ids of each account's uploads, by the test that made them */
  const uploads: { alice: string[]; bob: string[]; birmanFirst?: string; birmanCopies: string[]; birmanCatalogue: string[] } = {
    alice: [],
    bob: [],
    birmanCopies: [],
    birmanCatalogue: [],
  };

  const uploadSync = async (key: string, name: string | Buffer, breedIds?: string[]): Promise<Suggested> => {
    const answer = await service.request('POST', '/v1/images/upload-sync', {
      key,
      body: { type: 'base64', image: (typeof name === 'string' ? photo(name) : name).toString('base64'), auto_crop: false, ...(breedIds ? { breed_ids: breedIds } : {}) },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    (key === alice ? uploads.alice : uploads.bob).push(answer.body.id);
    return answer as Suggested;
  };
  /** The breed centroids are a projection: wait until it has seen everything appended so far. */
  const centroidsCaughtUp = async () => {
    const { eventStore, readStore } = service.adapters;
    expect(await readStore.waitForCheckpoints(['breed-centroids'], await eventStore.headPosition(), 30_000)).toBe(true);
  };

  beforeAll(async () => {
    service = await startTestService({ uploadSyncTimeoutMs: 120_000 });
    alice = (await service.createAccount({ name: 'Alice' })).api_key;
    bob = (await service.createAccount({ name: 'Bob' })).api_key;
  }, 120_000);
  afterAll(async () => {
    await service?.dispose();
  });

  it('suggests the right breed first once labelled photos of it are in the catalogue, and another account’s private photos change nothing', async () => {
    // before: the by-name ImageNet map alone, which has no class for either breed
    const before = await uploadSync(alice, 'Birman_169');
    expect(before.body.species_id).toBe('1');
    expect(before.body.duplicate_of).toBeNull();
    expect(before.body.suggested_breed_ids).not.toContain('birm');

    for (const name of BIRMAN) uploads.birmanCatalogue.push((await uploadSync(alice, name, ['birm'])).body.id);
    for (const name of BOMBAY) await uploadSync(alice, name, ['bomb']);
    await centroidsCaughtUp();

    const birman = await uploadSync(alice, 'Birman_169');
    expect(birman.body.suggested_breed_ids[0]).toBe('birm');
    expect(birman.body.suggested_breeds[0]).toEqual({ id: 'birm', confidence: expect.any(Number) });
    expect(birman.body.suggested_breeds[0].confidence).toBeGreaterThan(0.5);
    expect(birman.body.suggested_breeds.map((s) => s.id)).toEqual(birman.body.suggested_breed_ids);
    // the same photo again: a duplicate of the first upload
    expect(birman.body.duplicate_of).toBe(before.body.id);
    const bombay = await uploadSync(alice, 'Bombay_167');
    expect(bombay.body.suggested_breed_ids[0]).toBe('bomb');

    // Bob labels Birman photos as Bombay, privately: his suggestions learn from them, Alice's do not
    for (const name of BIRMAN) await uploadSync(bob, name, ['bomb']);
    await centroidsCaughtUp();
    const bobs = await uploadSync(bob, 'Birman_169');
    expect(bobs.body.suggested_breed_ids[0]).toBe('bomb');
    const again = await uploadSync(alice, 'Birman_169');
    expect(again.body.suggested_breeds).toEqual(birman.body.suggested_breeds);
    uploads.birmanFirst = before.body.id;
    uploads.birmanCopies.push(birman.body.id, again.body.id);
  }, 300_000);

  it('marks an upload that nearly duplicates one of the same account’s images (re-encoded smaller), not another account’s', async () => {
    const first = await uploadSync(alice, 'Bombay_151');
    expect(first.body.duplicate_of).toBeNull();
    await centroidsCaughtUp();
    const meta = await sharp(photo('Bombay_151')).metadata();
    const smaller = await sharp(photo('Bombay_151')).resize({ width: Math.round(meta.width! * 0.7) }).jpeg({ quality: 60 }).toBuffer();
    expect((await uploadSync(alice, smaller)).body.duplicate_of).toBe(first.body.id);
    // another photo of the same breed is not a duplicate; nor is the same photo in another account
    expect((await uploadSync(alice, 'Bombay_153')).body.duplicate_of).toBeNull();
    expect((await uploadSync(bob, 'Bombay_151')).body.duplicate_of).toBeNull();
  }, 300_000);

  it('approved public photos teach every account', async () => {
    const carol = (await service.createAccount({ name: 'Carol' })).api_key;
    const upload = (name: string) => service.request('POST', '/v1/images/upload-sync', { key: carol, body: { type: 'base64', image: photo(name).toString('base64'), auto_crop: false } });
    // Alice's and Bob's Birman photos are private: Carol's suggestions know nothing of them
    const before = await upload('Birman_166');
    expect(before.status).toBe(201);
    expect(before.body.suggested_breed_ids).not.toContain('birm');
    for (const id of uploads.birmanCatalogue) {
      expect((await service.request('POST', `/v1/images/${id}/public-requests`, { key: alice, body: {} })).status).toBe(201);
      expect((await service.request('POST', `/v1/images/${id}/public-requests/decision`, { key: ADMIN_KEY, body: { status: 'approved' } })).status).toBe(200);
    }
    await centroidsCaughtUp();
    const after = await upload('Birman_166');
    expect(after.body.suggested_breed_ids[0]).toBe('birm');
  }, 120_000);

  it('similar images: the caller’s own and public ones, nearest first, never another account’s private ones', async () => {
    await centroidsCaughtUp();
    const id = uploads.birmanFirst!;
    const similar = await service.request('GET', `/v1/images/${id}/similar?limit=5`, { key: alice });
    expect(similar.status, JSON.stringify(similar.body)).toBe(200);
    const found = similar.body as { id: string; similarity: number; image: { id: string; url: string } }[];
    expect(found).toHaveLength(5);
    expect(found.map((f) => f.image.id)).toEqual(found.map((f) => f.id));
    expect(found.map((f) => f.id)).not.toContain(id);
    expect([...found].sort((a, b) => b.similarity - a.similarity)).toEqual(found);
    // the two later uploads of the same photo come first; then Alice's other Birman photos
    expect(new Set(found.slice(0, 2).map((f) => f.id))).toEqual(new Set(uploads.birmanCopies));
    expect(found[0].similarity).toBeGreaterThan(0.99);
    for (const f of found) expect(uploads.alice).toContain(f.id);
    // Bob's copy of the same photo is private to Bob: Alice never sees it; Bob sees his own and the public ones (Alice's approved Birman photos)
    const bobs = await service.request('GET', `/v1/images/${uploads.bob.at(-1)}/similar?limit=100`, { key: bob });
    expect(bobs.status).toBe(200);
    const bobSees = (bobs.body as { id: string }[]).map((f) => f.id);
    expect(bobSees.length).toBeGreaterThan(0);
    for (const id of bobSees) expect([...uploads.bob, ...uploads.birmanCatalogue]).toContain(id);
    expect(bobSees).toEqual(expect.arrayContaining(uploads.birmanCatalogue));
    // species filter: Alice's images are all cats
    expect((await service.request('GET', `/v1/images/${id}/similar?species_id=2`, { key: alice })).body).toEqual([]);
    // errors: another account's private image, an unknown one, bad limits
    expect((await service.request('GET', `/v1/images/${id}/similar`, { key: bob })).status).toBe(403);
    const unknown = await service.request('GET', '/v1/images/not-an-image/similar', { key: alice });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code ?? unknown.body.code).toBeDefined();
    for (const limit of ['0', '101', 'many']) expect((await service.request('GET', `/v1/images/${id}/similar?limit=${limit}`, { key: alice })).status, `limit=${limit}`).toBe(400);
    // a deletion counts in the deleter's very next query (read-your-writes, no waiting here), and in another account's
    const gone = uploads.birmanCatalogue[0];
    expect((await service.request('DELETE', `/v1/images/${gone}`, { key: alice })).body).toEqual({ message: 'SUCCESS' });
    const afterDelete = (await service.request('GET', `/v1/images/${id}/similar?limit=100`, { key: alice })).body as { id: string }[];
    expect(afterDelete.map((f) => f.id)).not.toContain(gone);
    expect(afterDelete.map((f) => f.id)).toEqual(expect.arrayContaining(uploads.birmanCatalogue.slice(1)));
    await centroidsCaughtUp();
    const bobAfter = (await service.request('GET', `/v1/images/${uploads.bob.at(-1)}/similar?limit=100`, { key: bob })).body as { id: string }[];
    expect(bobAfter.map((f) => f.id)).not.toContain(gone);
    expect(bobAfter.map((f) => f.id)).toEqual(expect.arrayContaining(uploads.birmanCatalogue.slice(1)));
  }, 120_000);
});

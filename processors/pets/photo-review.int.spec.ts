import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petDecider } from '../../domain/pets/decide.ts';
import { petStream, type PetMedia, type PetState } from '../../domain/pets/pet.ts';
import { fileBlobStore } from '../../infrastructure/blobs/file.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore, RecordedEvent } from '../../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { ImageDecodeError } from '../../infrastructure/vision/decode.ts';
import type { VisionModels } from '../../infrastructure/vision/port.ts';
import { drawScene, UNSAFE_RGB, visionDouble, type VisionDouble } from '../../test/vision-double.ts';
import { petPhotoReviewProcessor } from './photo-review.ts';

/** The pet photo review against a real event store and blob store, with the test double for the models. */
let dir = '';
let store: EventStore;
let blobs: BlobStore;
let vision: VisionDouble;
const logger = pino({ level: 'silent' });
const context = { accountId: 'acc', requestId: null, actor: 'test' };
const now = () => new Date().toISOString();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pet-review-'));
  store = sqliteEventStore(join(dir, 'events.db'));
  blobs = fileBlobStore(join(dir, 'blobs'));
  vision = visionDouble();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const deps = () => ({ eventStore: store, logger, blobs, vision });

const media = (id: string, kind: PetMedia['kind'] = 'photo'): PetMedia => ({
  media_id: id,
  kind,
  blob_key: `pet-p1-${id}`,
  content_hash: `hash-${id}`,
  mime_type: kind === 'photo' ? 'image/jpeg' : 'video/mp4',
  size_bytes: 1,
  width: 200,
  height: 150,
  pose: null,
  age_years: null,
  age_months: null,
  pet_age_months: null,
  description: null,
  original_filename: null,
  duration_seconds: null,
  video_codec: null,
  container: null,
  review_status: 'pending',
  created_at: now(),
});

const grey = () => drawScene(200, 150, []);
const red = () => drawScene(200, 150, [{ rgb: UNSAFE_RGB, left: 0, top: 0, width: 200, height: 100 }]);

/** A registered pet with these photos stored (bytes in the blob store); answers the PetPhotosAdded event. */
const petWithPhotos = async (photos: { id: string; bytes: Buffer | null }[]): Promise<RecordedEvent> => {
  await handleCommand(store, petStream('p1'), petDecider, { type: 'RegisterPet', pet_id: 'p1', account_id: 'acc', input: { name: 'Rex' }, references: {}, now: now() }, context);
  for (const photo of photos) if (photo.bytes) await blobs.put(`pet-p1-${photo.id}`, photo.bytes, 'image/jpeg');
  await handleCommand(store, petStream('p1'), petDecider, { type: 'AddPhotos', account_id: 'acc', photos: photos.map((p) => media(p.id)), now: now() }, context);
  const events = await store.readStream(petStream('p1'));
  return events.find((event) => event.type === 'PetPhotosAdded')!;
};

const statuses = async () => {
  const { state } = await stateOf(store, petStream('p1'), petDecider);
  return Object.fromEntries([...(state as Exclude<PetState, { status: 'none' }>).media.values()].map((m) => [m.media_id, m.review_status]));
};
const reviews = async () => (await store.readStream(petStream('p1'))).filter((event) => event.type === 'PetMediaReviewed');

describe('pet photo review processor', () => {
  it('reviews each photo of a batch: a clean one and one the model flags, with the reasons', async () => {
    const event = await petWithPhotos([
      { id: 'm1', bytes: await grey() },
      { id: 'm2', bytes: await red() },
    ]);
    expect(await statuses()).toEqual({ m1: 'pending', m2: 'pending' });
    await petPhotoReviewProcessor.handle(event, deps());
    expect(await statuses()).toEqual({ m1: 'clean', m2: 'rejected' });
    const appended = await reviews();
    expect(appended.map((e) => e.data)).toMatchObject([
      { pet_id: 'p1', media_id: 'm1', review_status: 'clean', reasons: [] },
      { pet_id: 'p1', media_id: 'm2', review_status: 'rejected', reasons: [expect.stringContaining('red pixels')] },
    ]);
    expect(appended[0].metadata).toMatchObject({ causation_id: event.id, actor: 'system:pet-photo-review' });
  });

  it('an event delivered twice reviews once: the model runs once per photo and one verdict is recorded', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: await grey() }]);
    await petPhotoReviewProcessor.handle(event, deps());
    await petPhotoReviewProcessor.handle(event, deps());
    expect(vision.calls.moderate).toBe(1);
    expect((await reviews()).length).toBe(1);
  });

  it('two deliveries at once still record one verdict per photo', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: await grey() }, { id: 'm2', bytes: await red() }]);
    await Promise.all([petPhotoReviewProcessor.handle(event, deps()), petPhotoReviewProcessor.handle(event, deps())]);
    expect((await reviews()).map((e) => e.data.media_id).sort()).toEqual(['m1', 'm2']);
    expect(await statuses()).toEqual({ m1: 'clean', m2: 'rejected' });
  });

  it('a model failure throws (the bus retries) and records nothing; the retry reviews', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: await grey() }]);
    vision.failNext = 1;
    await expect(petPhotoReviewProcessor.handle(event, deps())).rejects.toThrow('told to fail');
    expect(await statuses()).toEqual({ m1: 'pending' });
    await petPhotoReviewProcessor.handle(event, deps());
    expect(await statuses()).toEqual({ m1: 'clean' });
  });

  it('skips a photo whose bytes are gone and a pet removed meanwhile, without running the model', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: null }, { id: 'm2', bytes: await grey() }]);
    await handleCommand(store, petStream('p1'), petDecider, { type: 'RemovePet', account_id: 'acc', now: now() }, context);
    await petPhotoReviewProcessor.handle(event, deps());
    expect(vision.calls.moderate).toBe(0);
    expect(await reviews()).toEqual([]);
  });

  it('a photo whose bytes are gone is skipped while the others are reviewed', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: null }, { id: 'm2', bytes: await grey() }]);
    await petPhotoReviewProcessor.handle(event, deps());
    expect(await statuses()).toEqual({ m1: 'pending', m2: 'clean' });
  });

  it('bytes the model cannot decode are rejected rather than retried forever', async () => {
    const event = await petWithPhotos([{ id: 'm1', bytes: Buffer.from('not an image at all') }]);
    const undecodable: VisionModels = { ...vision, moderate: () => Promise.reject(new ImageDecodeError('cannot decode')) };
    await petPhotoReviewProcessor.handle(event, { ...deps(), vision: undecodable });
    expect((await reviews()).map((e) => e.data)).toMatchObject([{ media_id: 'm1', review_status: 'rejected', reasons: ['the photo could not be decoded'] }]);
  });

  it('ignores other pet events and videos', async () => {
    await handleCommand(store, petStream('p1'), petDecider, { type: 'RegisterPet', pet_id: 'p1', account_id: 'acc', input: { name: 'Rex' }, references: {}, now: now() }, context);
    await handleCommand(store, petStream('p1'), petDecider, { type: 'AddVideo', account_id: 'acc', video: media('v1', 'video'), now: now() }, context);
    for (const event of await store.readStream(petStream('p1'))) await petPhotoReviewProcessor.handle(event, deps());
    expect(vision.calls.moderate).toBe(0);
    expect(await reviews()).toEqual([]);
  });
});

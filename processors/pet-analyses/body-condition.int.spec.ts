import sharp from 'sharp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { petAnalysisStream, type PetAnalysisRequested } from '../../domain/pet-analyses/analysis.ts';
import { bcsReviewStream } from '../../domain/pet-analyses/bcs-review.ts';
import { measureTopView } from '../../domain/pet-analyses/silhouette.ts';
import { fileBlobStore } from '../../infrastructure/blobs/file.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { newEventId } from '../../infrastructure/ids.ts';
import { SIDE, TOP, sideView, topView } from '../../test/silhouettes.ts';
import { visionDouble } from '../../test/vision-double.ts';
import { bodyConditionProcessor } from './body-condition.ts';
import { extractSilhouette } from './silhouette.ts';

/** The silhouette extraction on drawn photos, and the processor against a real event store and blob store. */
let dir = '';
let store: EventStore;
let blobs: BlobStore;
const logger = pino({ level: 'silent' });
const metadata = { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bcs-'));
  store = sqliteEventStore(join(dir, 'events.db'));
  blobs = fileBlobStore(join(dir, 'blobs'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('silhouette extraction', () => {
  it('cuts a JPEG silhouette out of its box with a clean mask, and measures it as drawn', async () => {
    const image = await topView(TOP.ideal, { format: 'jpeg' });
    // the drawn body spans x 100–540 and the chest 140 px around y = 200, on 640 × 400
    const silhouette = await extractSilhouette(image, { left: 100 / 640, top: 130 / 400, width: 440 / 640, height: 140 / 400 });
    expect(silhouette.quality).toBeGreaterThan(0.9);
    const measured = measureTopView(silhouette.mask)!;
    expect(measured.waist_ratio).toBeGreaterThan(0.74);
    expect(measured.waist_ratio).toBeLessThan(0.82);
  });

  it('measures a photo stored turned (EXIF orientation 6) as the same photo stored upright', async () => {
    const upright = await topView(TOP.ideal, { format: 'jpeg' });
    // The same picture as a camera held sideways stores it: pixels turned a quarter back, orientation 6.
    const sideways = await sharp(await sharp(upright).rotate(-90).toBuffer()).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const box = { left: 100 / 640, top: 130 / 400, width: 440 / 640, height: 140 / 400 };
    const [a, b] = [await extractSilhouette(upright, box), await extractSilhouette(sideways, box)];
    expect(b.quality).toBeGreaterThan(0.9);
    expect(measureTopView(b.mask)!.waist_ratio).toBeCloseTo(measureTopView(a.mask)!.waist_ratio, 1);
  });

  it('a box that cuts the animal off gives a poor mask', async () => {
    const image = await topView(TOP.ideal);
    const silhouette = await extractSilhouette(image, { left: 250 / 640, top: 150 / 400, width: 150 / 640, height: 100 / 400 });
    expect(silhouette.quality).toBeLessThan(0.3);
    expect(silhouette.notes.join(' ')).toMatch(/touches/);
  });
});

const request = (photos: { media_id: string; blob_key: string; pose: 'top' | 'side' }[], kind: 'body_condition' | 'muscle_condition' = 'body_condition'): PetAnalysisRequested['data'] => ({
  analysis_id: `a-${kind}-${photos.length}`,
  kind,
  pet_id: 'p1',
  account_id: 'acc',
  inputs: { species_id: '2', breed_id: null, body_condition_score: null, recorded_age_months: 40, photo_age_months: [], photo_count: photos.length, country: null, photos, sub_id: 'owner', weight_kg: null },
  requested_at: new Date().toISOString(),
});

const requested = async (data: PetAnalysisRequested['data']) => {
  await store.append(petAnalysisStream(data.analysis_id), [{ id: newEventId(), type: 'PetAnalysisRequested', data, metadata }], { expectedRevision: 'no_stream' });
  return (await store.readStream(petAnalysisStream(data.analysis_id)))[0];
};

describe('body condition processor', () => {
  it('a low-confidence score (top view only) is recorded once and opens one review, even when delivered twice', async () => {
    await blobs.put('top-1', await topView(TOP.ideal), 'image/png');
    const vision = visionDouble();
    const event = await requested(request([{ media_id: 'm1', blob_key: 'top-1', pose: 'top' }]));
    await bodyConditionProcessor.handle(event, { eventStore: store, logger, blobs, vision });
    await bodyConditionProcessor.handle(event, { eventStore: store, logger, blobs, vision });
    const analysis = await store.readStream(petAnalysisStream('a-body_condition-1'));
    expect(analysis.map((e) => e.type)).toEqual(['PetAnalysisRequested', 'PetAnalysed']);
    expect(vision.calls.detect).toBe(1);
    const result = (analysis[1].data as { result: { score: number; confidence: number } }).result;
    expect(result.confidence).toBeLessThan(0.6);
    const review = await store.readStream(bcsReviewStream('a-body_condition-1'));
    expect(review.map((e) => e.type)).toEqual(['BcsReviewRequested']);
    expect(review[0].data).toMatchObject({ trigger: 'low_confidence', score: result.score, sub_id: 'owner', external_owner_id: 'owner' });
  });

  it('both views with good masks: no review; a photo whose bytes are gone is named in the reasons', async () => {
    await blobs.put('top-2', await topView(TOP.ideal), 'image/png');
    await blobs.put('side-2', await sideView(SIDE.ideal), 'image/png');
    const event = await requested(
      request([
        { media_id: 'm1', blob_key: 'top-2', pose: 'top' },
        { media_id: 'm2', blob_key: 'side-2', pose: 'side' },
        { media_id: 'm3', blob_key: 'gone', pose: 'side' },
      ]),
    );
    await bodyConditionProcessor.handle(event, { eventStore: store, logger, blobs, vision: visionDouble() });
    const analysis = await store.readStream(petAnalysisStream('a-body_condition-3'));
    const result = (analysis[1].data as { result: { score: number; confidence: number; reasons: string } }).result;
    expect(result.score).toBeGreaterThanOrEqual(4);
    expect(result.score).toBeLessThanOrEqual(5);
    expect(result.confidence).toBeGreaterThanOrEqual(0.6);
    expect(result.reasons).toMatch(/Not used: photo m3 \(side\): its bytes are gone/);
    expect(await store.readStream(bcsReviewStream('a-body_condition-3'))).toEqual([]);
  });

  it('muscle condition: the BCS comes from the same photos when none is recorded; a model failure is retried (throws)', async () => {
    await blobs.put('wasted', await topView(TOP.wastedHindquarters), 'image/png');
    const vision = visionDouble();
    const event = await requested(request([{ media_id: 'm1', blob_key: 'wasted', pose: 'top' }], 'muscle_condition'));
    vision.failNext = 1;
    await expect(bodyConditionProcessor.handle(event, { eventStore: store, logger, blobs, vision })).rejects.toThrow(/told to fail/);
    expect((await store.readStream(petAnalysisStream('a-muscle_condition-1'))).map((e) => e.type)).toEqual(['PetAnalysisRequested']);
    await bodyConditionProcessor.handle(event, { eventStore: store, logger, blobs, vision });
    const analysis = await store.readStream(petAnalysisStream('a-muscle_condition-1'));
    expect(analysis[1].data).toMatchObject({ kind: 'muscle_condition', result: { wasting_risk_flag: true } });
    expect((analysis[1].data as { result: { reasons: string } }).result.reasons).toMatch(/from the same top-view photos/);
  });
});

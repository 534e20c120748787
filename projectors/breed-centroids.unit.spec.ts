import { describe, expect, it } from 'vitest';
import { Collections, type BreedCentroidDoc } from '../contracts/read-models.ts';
import { centroidKey, decodeSum, fixedPointOf } from '../domain/images/breed-centroids.ts';
import { encodeEmbedding } from '../domain/images/embedding.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { unitOfWork } from '../infrastructure/read-store/unit-of-work.ts';
import { breedCentroidsProjection } from './breed-centroids.ts';

const MODEL = 'classifier 1';
const vector = (axis: number) => encodeEmbedding(Array.from({ length: 8 }, (_, i) => (i === axis ? 1 : 0.1)), MODEL, 'image');

let position = 0;
const event = (imageId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
  id: `e${++position}`,
  streamName: `image-${imageId}`,
  revision: 0n,
  position: BigInt(position),
  type,
  data: { image_id: imageId, ...data },
  metadata: {} as RecordedEvent['metadata'],
});
const uploaded = (id: string, account: string, breeds: string[], parent: string | null = null) =>
  event(id, 'ImageUploaded', { account_id: account, breed_ids: breeds, parent_image_id: parent });
const labelled = (id: string, account: string, axis: number) => event(id, 'ImageLabelled', { account_id: account, species_id: '2', embedding: vector(axis) });

describe('breed-centroids projection', () => {
  it('sums labelled images per scope and breed; tagging, making public and deleting move the sums exactly', async () => {
    const store = embeddedReadStore();
    const run = async (events: RecordedEvent[]) => {
      const work = unitOfWork(store);
      for (const e of events) await breedCentroidsProjection.apply(e, work.store);
      await work.flush();
    };
    const centroids = store.collection<BreedCentroidDoc>(Collections.breedCentroids);
    const centroid = (scope: string, breed: string) => centroids.get(centroidKey(scope, '2', breed, MODEL));

    await run([
      uploaded('a1', 'acct-a', ['beagle']),
      labelled('a1', 'acct-a', 0),
      uploaded('a2', 'acct-a', ['beagle']),
      labelled('a2', 'acct-a', 1),
      uploaded('b1', 'acct-b', []),
      labelled('b1', 'acct-b', 2),
      uploaded('child', 'acct-a', ['beagle'], 'a1'),
      labelled('child', 'acct-a', 3),
    ]);
    const a = await centroid('acct-a', 'beagle');
    expect(a?.count).toBe(2); // the auto-crop child is not counted
    expect([...decodeSum(a!.sum)]).toEqual([...fixedPointOf(vector(0))].map((x, i) => x + fixedPointOf(vector(1))[i]));
    expect(await centroids.find({ scope: 'acct-b' })).toEqual([]); // no breed: nothing

    // b1 tagged, then approved public: it leaves acct-b's scope for the public one
    await run([event('b1', 'ImageBreedTagged', { account_id: 'acct-b', breed_id: 'boxer' })]);
    expect((await centroid('acct-b', 'boxer'))?.count).toBe(1);
    await run([event('b1', 'ImagePublicRequestDecided', { account_id: 'acct-b', status: 'approved' })]);
    expect(await centroid('acct-b', 'boxer')).toBeNull();
    expect((await centroid('public', 'boxer'))?.count).toBe(1);

    // a2 untagged and a1 deleted: acct-a's beagle centroid is gone
    await run([event('a2', 'ImageBreedUntagged', { account_id: 'acct-a', breed_id: 'beagle' })]);
    expect((await centroid('acct-a', 'beagle'))?.count).toBe(1);
    expect([...decodeSum((await centroid('acct-a', 'beagle'))!.sum)]).toEqual([...fixedPointOf(vector(0))]);
    await run([event('a1', 'ImageDeleted', { account_id: 'acct-a' })]);
    expect(await centroid('acct-a', 'beagle')).toBeNull();
  });

  it('places an image by the whole image when its embedding is of a crop; a crop alone (labelled earlier) counts nothing', async () => {
    const store = embeddedReadStore();
    const crop = encodeEmbedding([1, 0, 0, 0, 0, 0, 0, 0], MODEL, 'crop');
    const work = unitOfWork(store);
    for (const e of [
      uploaded('w', 'acct-c', ['pug']),
      event('w', 'ImageLabelled', { account_id: 'acct-c', species_id: '2', embedding: crop, image_embedding: vector(5) }),
      uploaded('old', 'acct-c', ['pug']),
      event('old', 'ImageLabelled', { account_id: 'acct-c', species_id: '2', embedding: crop }),
    ])
      await breedCentroidsProjection.apply(e, work.store);
    await work.flush();
    const pug = await store.collection<BreedCentroidDoc>(Collections.breedCentroids).get(centroidKey('acct-c', '2', 'pug', MODEL));
    expect(pug?.count).toBe(1);
    expect([...decodeSum(pug!.sum)]).toEqual([...fixedPointOf(vector(5))]);
  });

  it('applying an event twice changes nothing (position guard and contribution bookkeeping)', async () => {
    const store = embeddedReadStore();
    const events = [uploaded('x', 'acct-a', ['pug']), labelled('x', 'acct-a', 4)];
    for (const round of [1, 2]) {
      const work = unitOfWork(store);
      for (const e of events) await breedCentroidsProjection.apply(e, work.store);
      await work.flush();
      expect((await store.collection<BreedCentroidDoc>(Collections.breedCentroids).get(centroidKey('acct-a', '2', 'pug', MODEL)))?.count, `round ${round}`).toBe(1);
    }
  });
});

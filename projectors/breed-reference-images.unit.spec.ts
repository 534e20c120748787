import { describe, expect, it } from 'vitest';
import { BREEDS_VERSION_ID, REFERENCE_COLLECTIONS, type BreedDoc, type BreedsVersionDoc } from '../contracts/reference-read-models.ts';
import type { ImageEvent, ImageLabel } from '../domain/images/image.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { breedsProjection } from './breeds.ts';

/**
 * The choice of a breed's reference image, given(the image events so far).when(more).then(the
 * reference): the breeds projection applied to an in-memory store holding two breeds, a cat
 * (`abys`) and a dog (`beag`).
 */
const AT = '2026-11-27T00:00:00.000Z';
const ACCOUNT = 'acc-1';

const label = (name: string, confidence: number, boxes: number[] = [confidence]): ImageLabel => ({
  Name: name,
  Confidence: confidence,
  Instances: boxes.map((box) => ({ BoundingBox: { Width: 0.5, Height: 0.5, Left: 0.1, Top: 0.1 }, Confidence: box })),
  Parents: [{ Name: 'Animal' }],
});

const uploaded = (id: string, breedIds: string[], parent: string | null = null): ImageEvent => ({
  type: 'ImageUploaded',
  data: {
    image_id: id,
    account_id: ACCOUNT,
    sub_id: null,
    original_filename: null,
    mime_type: 'image/jpeg',
    format: 'jpg',
    width: 10,
    height: 10,
    bytes: 10,
    age_months: null,
    breed_ids: breedIds,
    url_token: `t-${id}`,
    blob_keys: { original: 'o', thumb: 't', small: 's', med: 'm', full: 'f' },
    auto_crop: false,
    parent_image_id: parent,
    crop_box: null,
    created_at: AT,
  },
});
const validated = (id: string, verdict: 'clean' | 'unsafe'): ImageEvent => ({
  type: 'ImageValidated',
  data: { image_id: id, account_id: ACCOUNT, verdict, unsafe_reasons: verdict === 'unsafe' ? ['Explicit'] : [], moderation_labels: [], scores: {}, threshold: 0.7, model: 'm', validated_at: AT },
});
const labelled = (id: string, speciesId: string | null, labels: ImageLabel[]): ImageEvent => ({
  type: 'ImageLabelled',
  data: {
    image_id: id,
    account_id: ACCOUNT,
    labels,
    species_id: speciesId,
    suggested_breed_ids: [],
    tags: [],
    colour_ids: [],
    colour_codes: [],
    orientation: 'square',
    child_image_ids: [],
    vendor: 'test',
    labelled_at: AT,
  },
});
const decided = (id: string, status: 'approved' | 'rejected'): ImageEvent => ({
  type: 'ImagePublicRequestDecided',
  data: { image_id: id, account_id: ACCOUNT, request_id: `r-${id}`, status, admin_message: null, actioned_by_email: null, actioned_at: AT },
});
const deleted = (id: string): ImageEvent => ({ type: 'ImageDeleted', data: { image_id: id, account_id: ACCOUNT, blob_keys: { original: 'o', thumb: 't', small: 's', med: 'm', full: 'f' }, deleted_at: AT } });
const untagged = (id: string, breedId: string): ImageEvent => ({ type: 'ImageBreedUntagged', data: { image_id: id, account_id: ACCOUNT, breed_id: breedId, untagged_at: AT } });

/** A public, clean, labelled photo of `breedIds` with the detector's confidence in `species`. */
const publicPhoto = (id: string, breedIds: string[], species: string | null, confidence: number, labels?: ImageLabel[]): ImageEvent[] => [
  uploaded(id, breedIds),
  validated(id, 'clean'),
  labelled(id, species, labels ?? (species === '1' ? [label('Cat', confidence)] : species === '2' ? [label('Dog', confidence)] : [])),
  decided(id, 'approved'),
];

const breed = (id: string, speciesId: string): BreedDoc =>
  ({
    _id: id,
    id,
    species_id: speciesId,
    name: id,
    name_lc: id,
    breed_group_lc: '',
    venom_code_list: [],
    extinct: false,
    resource: { id, name: id, species_id: speciesId, reference_image_id: null },
    translations: {},
  }) as unknown as BreedDoc;

const scenario = () => {
  const store: ReadStore = embeddedReadStore();
  let position = 100;
  const ready = (async () => {
    await breedsProjection.setup!(store);
    await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).upsert(breed('abys', '1'), 1n);
    await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).upsert(breed('beag', '2'), 2n);
  })();
  const apply = async (events: ImageEvent[], times = 1) => {
    await ready;
    for (const event of events) {
      position += 1;
      const recorded = {
        id: `e${position}`,
        streamName: `image-${event.data.image_id}`,
        revision: 0n,
        position: BigInt(position),
        type: event.type,
        data: event.data,
        metadata: {},
      } as unknown as RecordedEvent;
      for (let i = 0; i < times; i++) await breedsProjection.apply(recorded, store);
    }
  };
  const reference = async (breedId: string) => (await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).get(breedId))?.resource.reference_image_id ?? null;
  const version = async () => (await store.collection<BreedsVersionDoc>(REFERENCE_COLLECTIONS.breedsVersion).get(BREEDS_VERSION_ID))?.position;
  return { apply, reference, version };
};

const given = (events: ImageEvent[]) => ({
  when: (more: ImageEvent[]) => ({
    then: async (expected: Record<string, string | null>) => {
      const world = scenario();
      await world.apply(events);
      await world.apply(more);
      for (const [breedId, imageId] of Object.entries(expected)) expect(await world.reference(breedId), breedId).toBe(imageId);
      // Replaying the same events (a restart before the checkpoint was stored) changes nothing.
      const replayed = scenario();
      await replayed.apply([...events, ...more], 2);
      for (const [breedId, imageId] of Object.entries(expected)) expect(await replayed.reference(breedId), `${breedId} (replayed)`).toBe(imageId);
    },
  }),
});

describe('breed reference images (breeds projection)', () => {
  it('takes the first public image of the breed', () => given([]).when(publicPhoto('a', ['abys'], '1', 80)).then({ abys: 'a', beag: null }));

  it('ignores private images and images whose public request was rejected', () =>
    given([uploaded('p', ['abys']), validated('p', 'clean'), labelled('p', '1', [label('Cat', 99)])])
      .when([uploaded('r', ['abys']), labelled('r', '1', [label('Cat', 99)]), decided('r', 'rejected')])
      .then({ abys: null }));

  it('moves to a better one when it arrives (higher detection confidence of the species)', () =>
    given(publicPhoto('a', ['abys'], '1', 80)).when(publicPhoto('b', ['abys'], '1', 95)).then({ abys: 'b' }));

  it('stays when an equal or worse one arrives (ties go to the one public first)', () =>
    given(publicPhoto('a', ['abys'], '1', 80))
      .when([...publicPhoto('b', ['abys'], '1', 80), ...publicPhoto('c', ['abys'], '1', 40)])
      .then({ abys: 'a' }));

  it('weighs the best detection box of the species, not the label alone', () =>
    given(publicPhoto('a', ['abys'], '1', 0, [label('Cat', 90, [60])]))
      .when(publicPhoto('b', ['abys'], '1', 0, [label('Cat', 70, [70, 20])]))
      .then({ abys: 'b' }));

  it('never takes a photo where another species was found, and prefers a detected photo to one with no animal found', () =>
    given(publicPhoto('dog', ['abys'], '2', 99))
      .when([...publicPhoto('none', ['abys'], null, 0), ...publicPhoto('cat', ['abys'], '1', 30)])
      .then({ abys: 'cat' }));

  it('falls back to the next best when the reference is deleted', () =>
    given([...publicPhoto('a', ['abys'], '1', 80), ...publicPhoto('b', ['abys'], '1', 95)])
      .when([deleted('b')])
      .then({ abys: 'a' }));

  it('falls back to the next best when the reference is untagged from the breed, and to none when no image is left', () =>
    given([...publicPhoto('a', ['abys'], '1', 80), ...publicPhoto('b', ['abys'], '1', 95)])
      .when([untagged('b', 'abys'), deleted('a')])
      .then({ abys: null }));

  it('falls back to the next best when the reference is found unsafe (a late safety verdict)', () =>
    given([...publicPhoto('a', ['abys'], '1', 80), uploaded('b', ['abys']), labelled('b', '1', [label('Cat', 99)]), decided('b', 'approved')])
      .when([validated('b', 'unsafe')])
      .then({ abys: 'a' }));

  it('never takes a child crop (auto-crop) nor an unsafe image', () =>
    given([uploaded('child', ['abys'], 'parent'), labelled('child', '1', [label('Cat', 99)]), decided('child', 'approved')])
      .when([uploaded('bad', ['abys']), validated('bad', 'unsafe'), labelled('bad', '1', [label('Cat', 99)]), decided('bad', 'approved')])
      .then({ abys: null }));

  it('chooses per breed by the breed’s species, for an image tagged with a cat and a dog breed', () =>
    given(publicPhoto('cat', ['abys', 'beag'], '1', 90)).when(publicPhoto('other', ['beag'], null, 0)).then({ abys: 'cat', beag: 'other' }));

  it('moves the breeds’ version when a reference changes or the reference image changes, not for other images', async () => {
    const world = scenario();
    await world.apply(publicPhoto('a', ['abys'], '1', 80));
    const afterReference = await world.version();
    expect(afterReference).toBeDefined();
    // A private image, and a public one that is no better: no breed changes.
    await world.apply([uploaded('p', ['abys']), labelled('p', '1', [label('Cat', 99)])]);
    await world.apply(publicPhoto('worse', ['abys'], '1', 10));
    expect(await world.version()).toBe(afterReference);
    // The reference image is tagged with another breed: the embedded copy changes, so the version moves.
    await world.apply([{ type: 'ImageBreedTagged', data: { image_id: 'a', account_id: ACCOUNT, breed_id: 'beag', tagged_at: AT } }]);
    const afterTag = await world.version();
    expect(BigInt(afterTag!)).toBeGreaterThan(BigInt(afterReference!));
    expect(await world.reference('abys')).toBe('a');
  });
});

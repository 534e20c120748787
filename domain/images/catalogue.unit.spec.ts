import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { imageDecider } from './decide.ts';
import { catalogueDecider } from './catalogue.ts';
import { blobKeysFor, type ImageEvent, type ImageLabelled, type ImagePublished, type ImageUploaded, type ImageValidated } from './image.ts';
import { attributionOrNull, licenseFamilyOf } from './attribution.ts';
import { accountDecider } from '../accounts/decide.ts';
import { CATALOGUE_ACCOUNT_ID, type AccountOpened } from '../accounts/account.ts';

const now = '2026-11-01T00:00:00.000Z';
const attribution = { license: 'CC-BY-SA-4.0', author: null, source_url: 'https://example.org/', title: 'A cat' };
const upload = (data: Partial<ImageUploaded['data']> = {}): ImageUploaded => ({
  type: 'ImageUploaded',
  data: {
    image_id: 'img1',
    account_id: CATALOGUE_ACCOUNT_ID,
    sub_id: null,
    original_filename: 'cat.jpg',
    mime_type: 'image/jpeg',
    format: 'jpg',
    width: 640,
    height: 480,
    bytes: 1234,
    age_months: null,
    breed_ids: ['abys'],
    url_token: 'tok',
    blob_keys: blobKeysFor('img1'),
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: now,
    attribution,
    public_when_safe: true,
    ...data,
  },
});
const validated = (verdict: 'clean' | 'unsafe'): ImageValidated => ({
  type: 'ImageValidated',
  data: { image_id: 'img1', account_id: CATALOGUE_ACCOUNT_ID, verdict, unsafe_reasons: [], moderation_labels: [], scores: {}, threshold: 0.7, model: 'test', validated_at: now },
});
const labelled: ImageLabelled = {
  type: 'ImageLabelled',
  data: {
    image_id: 'img1',
    account_id: CATALOGUE_ACCOUNT_ID,
    labels: [],
    species_id: '1',
    suggested_breed_ids: [],
    tags: [],
    colour_ids: [],
    colour_codes: [],
    orientation: 'landscape',
    child_image_ids: [],
    vendor: 'test',
    labelled_at: now,
  },
};
const published: ImagePublished = { type: 'ImagePublished', data: { image_id: 'img1', account_id: CATALOGUE_ACCOUNT_ID, reason: 'catalogue_import', published_at: now } };
const publish = { type: 'PublishCatalogueImage' as const, now };

describe('catalogue uploads: public without a request, only for the catalogue account and only with a licence', () => {
  const uploads = deciderSpec(imageDecider);
  it('the catalogue account may upload an image to be made public once safe', () =>
    uploads.given([]).when({ type: 'UploadImage', data: upload().data, uploader: 'catalogue' }).then([upload()]));
  it('a customer account may not', () => {
    uploads.given([]).when({ type: 'UploadImage', data: upload().data }).thenThrows('forbidden');
    uploads.given([]).when({ type: 'UploadImage', data: upload().data, uploader: 'customer' }).thenThrows('forbidden');
  });
  it('a photo without a licence is never to be made public', () => {
    uploads.given([]).when({ type: 'UploadImage', data: upload({ attribution: { ...attribution, license: null } }).data, uploader: 'catalogue' }).thenThrows('validation_failed');
    uploads.given([]).when({ type: 'UploadImage', data: upload({ attribution: null }).data, uploader: 'catalogue' }).thenThrows('validation_failed');
  });
  it('a private catalogue upload needs no licence', () => {
    const data = upload({ attribution: null, public_when_safe: undefined }).data;
    uploads.given([]).when({ type: 'UploadImage', data, uploader: 'catalogue' }).then([{ type: 'ImageUploaded', data }]);
  });

  const spec = deciderSpec(catalogueDecider);
  it('publishes once safe and labelled, and only once', () => {
    spec.given([upload(), validated('clean'), labelled]).when(publish).then([published]);
    spec.given([upload(), validated('clean'), labelled, published]).when(publish).thenNothing();
  });
  it('never publishes an unsafe image, even once labelled', () => spec.given([upload(), validated('unsafe'), labelled]).when(publish).thenThrows('conflict'));
  it('waits for the pipeline', () => {
    spec.given([upload()]).when(publish).thenThrows('conflict');
    spec.given([upload(), validated('clean')]).when(publish).thenThrows('conflict');
  });
  it('publishes only images uploaded to be public, and no deleted or unknown one', () => {
    spec.given([upload({ public_when_safe: undefined }), validated('clean'), labelled]).when(publish).thenThrows('forbidden');
    spec.given([]).when(publish).thenThrows('not_found');
    const deleted = { type: 'ImageDeleted' as const, data: { image_id: 'img1', account_id: CATALOGUE_ACCOUNT_ID, blob_keys: blobKeysFor('img1'), deleted_at: now } };
    spec.given([upload(), validated('clean'), labelled, deleted]).when(publish).thenThrows('not_found');
  });
  it('a published image is public in the state', () => {
    const state = ([upload(), validated('clean'), labelled, published] as ImageEvent[]).reduce(catalogueDecider.evolve, catalogueDecider.initialState());
    expect(state.exists && state.isPublic).toBe(true);
  });
});

describe('the catalogue account', () => {
  const spec = deciderSpec(accountDecider);
  const opened: AccountOpened = {
    type: 'AccountOpened',
    data: { account_id: CATALOGUE_ACCOUNT_ID, name: 'Catalogue (photo import)', email: null, features: [], opened_at: now, kind: 'catalogue' },
  };
  it('is opened once, without a key', () => {
    spec.given([]).when({ type: 'OpenCatalogueAccount', now }).then([opened]);
    spec.given([opened]).when({ type: 'OpenCatalogueAccount', now }).thenNothing();
  });
  it('takes no API key', () =>
    spec.given([opened]).when({ type: 'IssueApiKey', key: { key_id: 'k', key_hash: 'h', key_prefix: 'p' }, now }).thenThrows('forbidden'));
  it('is not a customer account that happens to have its id', () => {
    const customer: AccountOpened = { type: 'AccountOpened', data: { ...opened.data, kind: undefined } };
    spec.given([customer]).when({ type: 'OpenCatalogueAccount', now }).thenThrows('conflict');
  });
});

describe('licence families', () => {
  it.each([
    ['CC-BY-SA-4.0', 'cc-by-sa'],
    ['CC-BY-SA-3.0-DE', 'cc-by-sa'],
    ['CC-BY-4.0', 'cc-by'],
    ['CC-BY-NC-SA-2.0-UK', 'cc-by-nc-sa'],
    ['CC-BY-NC-ND-4.0', 'cc-by-nc-nd'],
    ['CC-BY-ND-2.5', 'cc-by-nd'],
    ['CC-BY-NC-3.0', 'cc-by-nc'],
    ['CC0-1.0', 'cc0'],
    ['CC-PDM-1.0', 'public-domain'],
    ['MIT', 'other'],
    ['CC-SA-1.0', 'other'],
  ])('%s is %s', (id, family) => expect(licenseFamilyOf(id)).toBe(family));
  it('no licence is no family', () => {
    expect(licenseFamilyOf(null)).toBeNull();
    expect(licenseFamilyOf('')).toBeNull();
  });
  it('an attribution with nothing known is null', () => {
    expect(attributionOrNull({ license: null, author: null, source_url: null, title: null })).toBeNull();
    expect(attributionOrNull({ license: null, author: 'Ann', source_url: null, title: null })).toEqual({ license: null, author: 'Ann', source_url: null, title: null });
  });
});

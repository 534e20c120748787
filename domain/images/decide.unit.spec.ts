import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { imageDecider } from './decide.ts';
import { blobKeysFor, type ImageLabelled, type ImageUploaded, type ImageValidated } from './image.ts';

const spec = deciderSpec(imageDecider);
const now = '2026-11-01T00:00:00.000Z';
const uploaded: ImageUploaded = {
  type: 'ImageUploaded',
  data: {
    image_id: 'img1',
    account_id: 'acc',
    sub_id: 'u1',
    original_filename: 'cat.jpg',
    mime_type: 'image/jpeg',
    format: 'jpg',
    width: 640,
    height: 480,
    bytes: 1234,
    age_months: null,
    breed_ids: [],
    url_token: 'tok',
    blob_keys: blobKeysFor('img1'),
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: now,
  },
};
const validated = (verdict: 'clean' | 'unsafe'): ImageValidated => ({
  type: 'ImageValidated',
  data: {
    image_id: 'img1',
    account_id: 'acc',
    verdict,
    unsafe_reasons: verdict === 'unsafe' ? ['nsfw 0.93 >= 0.7'] : [],
    moderation_labels: [],
    scores: { nsfw: verdict === 'unsafe' ? 0.93 : 0.01 },
    threshold: 0.7,
    model: 'test',
    validated_at: now,
  },
});
const labelled: ImageLabelled = {
  type: 'ImageLabelled',
  data: {
    image_id: 'img1',
    account_id: 'acc',
    labels: [],
    species_id: '1',
    suggested_breed_ids: [],
    tags: ['cat'],
    colour_ids: [],
    colour_codes: [],
    orientation: 'landscape',
    child_image_ids: [],
    vendor: 'test',
    labelled_at: now,
  },
};
const deleted = { type: 'ImageDeleted' as const, data: { image_id: 'img1', account_id: 'acc', blob_keys: blobKeysFor('img1'), deleted_at: now } };

describe('image decider: upload and pipeline', () => {
  it('uploads on a new stream', () => spec.given([]).when({ type: 'UploadImage', data: uploaded.data }).then([uploaded]));
  it('refuses a second upload on the same id', () =>
    spec.given([uploaded]).when({ type: 'UploadImage', data: uploaded.data }).thenThrows('conflict'));
  it('moves to_be_reviewed to clean', () =>
    spec.given([uploaded]).when({ type: 'RecordValidation', data: validated('clean').data }).then([validated('clean')]));
  it('moves to_be_reviewed to unsafe', () =>
    spec.given([uploaded]).when({ type: 'RecordValidation', data: validated('unsafe').data }).then([validated('unsafe')]));
  it('records a validation once (a redelivered event decides nothing)', () =>
    spec.given([uploaded, validated('clean')]).when({ type: 'RecordValidation', data: validated('unsafe').data }).thenNothing());
  it('labels a clean or an unsafe image', () => {
    spec.given([uploaded, validated('clean')]).when({ type: 'RecordLabels', data: labelled.data }).then([labelled]);
    spec.given([uploaded, validated('unsafe')]).when({ type: 'RecordLabels', data: labelled.data }).then([labelled]);
  });
  it('labels once', () =>
    spec.given([uploaded, validated('clean'), labelled]).when({ type: 'RecordLabels', data: labelled.data }).thenNothing());
  it('does not label before validation', () =>
    spec.given([uploaded]).when({ type: 'RecordLabels', data: labelled.data }).thenThrows('conflict'));
  it('answers not found for a missing image', () => {
    spec.given([]).when({ type: 'RecordValidation', data: validated('clean').data }).thenThrows('not_found');
    spec.given([]).when({ type: 'RecordLabels', data: labelled.data }).thenThrows('not_found');
  });
  it('leaves a deleted image alone', () => {
    spec.given([uploaded, deleted]).when({ type: 'RecordValidation', data: validated('clean').data }).thenNothing();
    spec.given([uploaded, validated('clean'), deleted]).when({ type: 'RecordLabels', data: labelled.data }).thenNothing();
  });
});

import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { imageBreedsDecider } from './breeds.ts';
import { publicRequestDecider } from './public-requests.ts';
import { deleteImageDecider } from './delete.ts';
import { blobKeysFor, type ImageEvent, type ImageUploaded } from './image.ts';

const now = '2026-11-01T00:00:00.000Z';
const uploaded: ImageUploaded = {
  type: 'ImageUploaded',
  data: {
    image_id: 'img1',
    account_id: 'acc',
    sub_id: null,
    original_filename: null,
    mime_type: 'image/png',
    format: 'png',
    width: 10,
    height: 10,
    bytes: 100,
    age_months: null,
    breed_ids: ['abys'],
    url_token: 'tok',
    blob_keys: blobKeysFor('img1'),
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: now,
  },
};
const deleted: ImageEvent = { type: 'ImageDeleted', data: { image_id: 'img1', account_id: 'acc', blob_keys: blobKeysFor('img1'), deleted_at: now } };
const requested: ImageEvent = {
  type: 'ImagePublicRequested',
  data: { image_id: 'img1', account_id: 'acc', request_id: 'r1', request_message: 'please', created_at: now },
};
const decided = (status: 'approved' | 'rejected'): ImageEvent => ({
  type: 'ImagePublicRequestDecided',
  data: { image_id: 'img1', account_id: 'acc', request_id: 'r1', status, admin_message: null, actioned_by_email: null, actioned_at: now },
});

describe('breeds tagged on an image', () => {
  const spec = deciderSpec(imageBreedsDecider);
  it('tags a breed that exists and is not tagged yet', () =>
    spec.given([uploaded]).when({ type: 'TagBreed', account_id: 'acc', breed_id: 'beng', breed_exists: true, now }).then([
      { type: 'ImageBreedTagged', data: { image_id: 'img1', account_id: 'acc', breed_id: 'beng', tagged_at: now } },
    ]));
  it('refuses an unknown breed, a breed already tagged, another account and a deleted image', () => {
    spec.given([uploaded]).when({ type: 'TagBreed', account_id: 'acc', breed_id: 'nope', breed_exists: false, now }).thenThrows('validation_failed');
    spec.given([uploaded]).when({ type: 'TagBreed', account_id: 'acc', breed_id: 'abys', breed_exists: true, now }).thenThrows('conflict');
    spec.given([uploaded]).when({ type: 'TagBreed', account_id: 'other', breed_id: 'beng', breed_exists: true, now }).thenThrows('forbidden');
    spec.given([uploaded, deleted]).when({ type: 'TagBreed', account_id: 'acc', breed_id: 'beng', breed_exists: true, now }).thenThrows('not_found');
    spec.given([]).when({ type: 'UntagBreed', account_id: 'acc', breed_id: 'abys', now }).thenThrows('not_found');
  });
  it('untags a tagged breed; an untagged one is 404', () => {
    spec.given([uploaded]).when({ type: 'UntagBreed', account_id: 'acc', breed_id: 'abys', now }).then([
      { type: 'ImageBreedUntagged', data: { image_id: 'img1', account_id: 'acc', breed_id: 'abys', untagged_at: now } },
    ]);
    spec.given([uploaded]).when({ type: 'UntagBreed', account_id: 'acc', breed_id: 'beng', now }).thenThrows('not_found');
  });
});

describe('public requests', () => {
  const spec = deciderSpec(publicRequestDecider);
  const request = { type: 'RequestPublic' as const, account_id: 'acc', request_id: 'r2', request_message: null, now };
  const decide = { type: 'DecidePublicRequest' as const, status: 'approved' as const, admin_message: 'ok', actioned_by_email: 'a@b.test', now };
  it('opens a request; a second while pending is public_request_pending', () => {
    spec.given([uploaded]).when(request).then([
      { type: 'ImagePublicRequested', data: { image_id: 'img1', account_id: 'acc', request_id: 'r2', request_message: null, created_at: now } },
    ]);
    spec.given([uploaded, requested]).when(request).thenThrows('public_request_pending');
  });
  it('allows a new request after a rejection, none once public, none for another account', () => {
    spec.given([uploaded, requested, decided('rejected')]).when(request).then([
      { type: 'ImagePublicRequested', data: { image_id: 'img1', account_id: 'acc', request_id: 'r2', request_message: null, created_at: now } },
    ]);
    spec.given([uploaded, requested, decided('approved')]).when(request).thenThrows('conflict');
    spec.given([uploaded]).when({ ...request, account_id: 'other' }).thenThrows('forbidden');
    spec.given([uploaded]).when({ ...request, request_message: 'x'.repeat(501) }).thenThrows('validation_failed');
  });
  it('decides a pending request once', () => {
    spec.given([uploaded, requested]).when(decide).then([
      {
        type: 'ImagePublicRequestDecided',
        data: { image_id: 'img1', account_id: 'acc', request_id: 'r1', status: 'approved', admin_message: 'ok', actioned_by_email: 'a@b.test', actioned_at: now },
      },
    ]);
    spec.given([uploaded, requested, decided('rejected')]).when(decide).thenThrows('conflict');
    spec.given([uploaded]).when(decide).thenThrows('not_found');
    spec.given([uploaded, requested, deleted]).when(decide).thenThrows('not_found');
  });
});

describe('deleting an image', () => {
  const spec = deciderSpec(deleteImageDecider);
  it('deletes the owner’s image once, naming its blobs', () => {
    spec.given([uploaded]).when({ type: 'DeleteImage', account_id: 'acc', now }).then([deleted as never]);
    spec.given([uploaded, deleted]).when({ type: 'DeleteImage', account_id: 'acc', now }).thenThrows('not_found');
    spec.given([uploaded]).when({ type: 'DeleteImage', account_id: 'other', now }).thenThrows('forbidden');
  });
});

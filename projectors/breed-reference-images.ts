import { Collections, type BreedImageDoc } from '../contracts/read-models.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc } from '../contracts/reference-read-models.ts';
import { breedIdsAfter, type ImageEvent } from '../domain/images/image.ts';
import type { Recorded } from '../infrastructure/event-store/recorded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { markBreedsChanged } from './breeds-version.ts';

/**
 * A breed's `reference_image_id` (TheCatAPI): the first image tagged with the breed that became
 * public (an approved public request), null while there is none. The breeds projection keeps its
 * own record of each image's breeds and public position (collection breed_images), so a rebuild
 * gives the same answer whatever order the projections run in.
 */
export const referenceImageOf = async (store: ReadStore, breedId: string): Promise<string | null> => {
  const [first] = await store
    .collection<BreedImageDoc>(Collections.breedImages)
    .find({ breed_ids: breedId, public_since: { $gte: 0 } }, { sort: { public_since: 1, _id: 1 }, limit: 1 });
  return first?._id ?? null;
};

const refreshBreeds = async (store: ReadStore, breedIds: Iterable<string>, position: bigint): Promise<void> => {
  const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
  for (const breedId of new Set(breedIds)) {
    const breed = await breeds.get(breedId);
    if (!breed) continue;
    const reference = await referenceImageOf(store, breedId);
    if (breed.resource.reference_image_id === reference) continue;
    await breeds.upsert({ ...breed, resource: { ...breed.resource, reference_image_id: reference } }, position);
    await markBreedsChanged(store, position);
  }
};

/** Applies an image event: records the image's breeds and public position, then refreshes the breeds it touched. */
export const applyImageToBreeds = async (event: Recorded<ImageEvent>, store: ReadStore): Promise<void> => {
  const images = store.collection<BreedImageDoc>(Collections.breedImages);
  const imageId = event.data.image_id;
  const before = await images.get(imageId);
  let after: BreedImageDoc | null;
  switch (event.type) {
    case 'ImageUploaded':
      after = { _id: imageId, breed_ids: [...event.data.breed_ids], public_since: null };
      break;
    case 'ImageBreedTagged':
    case 'ImageBreedUntagged':
      after = before && { ...before, breed_ids: breedIdsAfter(before.breed_ids, event) };
      break;
    case 'ImagePublicRequestDecided':
      after = before && (before.public_since !== null || event.data.status !== 'approved' ? before : { ...before, public_since: Number(event.position) });
      break;
    case 'ImagePublished':
      after = before && (before.public_since !== null ? before : { ...before, public_since: Number(event.position) });
      break;
    case 'ImageDeleted':
      after = null;
      break;
    default:
      return;
  }
  if (after) await images.upsert(after, event.position);
  else if (before) await images.delete(imageId, event.position);
  // Only public images count: a change to a private one moves no reference.
  if (before?.public_since == null && after?.public_since == null) return;
  await refreshBreeds(store, [...(before?.breed_ids ?? []), ...(after?.breed_ids ?? [])], event.position);
};

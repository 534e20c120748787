import { imageFilePath } from '../contracts/image-url.ts';
import type { ImageRefDoc } from '../contracts/read-models.ts';
import { breedIdsAfter, type ImageEvent } from '../domain/images/image.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';

/**
 * The image side of a projection whose documents name an image (votes, favourites): it keeps its
 * own copy of what it needs from each image (owner, file path, public, species, breeds) in its own
 * collection, and fills every document of an image from it — when the document is made, and again
 * whenever the image changes. Projections never read each other's collections, so a rebuild of
 * one gives the same result whatever the others have reached.
 */
export type ImageFields = { image_url: string | null; image_species_id: string | null; image_breed_ids: string[] };

/** The image fields of a document of `accountId`: only an image the account may see (its own or public) shows. */
export const imageFieldsFor = (ref: ImageRefDoc | null, accountId: string): ImageFields =>
  ref && (ref.public || ref.account_id === accountId)
    ? { image_url: ref.url_path, image_species_id: ref.species_id, image_breed_ids: ref.breed_ids }
    : { image_url: null, image_species_id: null, image_breed_ids: [] };

/**
 * A projection's prefetch for the documents its events make: reads the image copies the batch's
 * `eventTypes` events name (data.image_id) in one go, so each event's lookup comes from memory.
 */
export const prefetchImageRefs = async (events: readonly RecordedEvent[], store: ReadStore, refsCollection: string, eventTypes: readonly string[]): Promise<void> => {
  const ids = events.filter((event) => eventTypes.includes(event.type)).map((event) => String((event.data as { image_id?: unknown }).image_id));
  if (ids.length > 1) await store.collection<ImageRefDoc>(refsCollection).getMany(ids);
};

const sameFields = (a: ImageFields, b: ImageFields): boolean =>
  a.image_url === b.image_url && a.image_species_id === b.image_species_id && a.image_breed_ids.join(',') === b.image_breed_ids.join(',');

/**
 * Applies an image event to the projection's image copies, then rewrites the documents of that
 * image whose fields changed. `documents` is the projection's own collection, with `image_id`
 * and `account_id` on each document (an index on image_id keeps the lookup cheap).
 */
export const applyImageEvent = async <T extends ImageFields & { _id: string; image_id: string; account_id: string }>(
  recorded: RecordedEvent,
  store: ReadStore,
  refsCollection: string,
  documentsCollection: string,
): Promise<void> => {
  const event = recorded as unknown as ImageEvent;
  const refs = store.collection<ImageRefDoc>(refsCollection);
  const imageId = event.data.image_id;
  const before = await refs.get(imageId);
  let after: ImageRefDoc | null;
  switch (event.type) {
    case 'ImageUploaded':
      after = {
        _id: imageId,
        account_id: event.data.account_id,
        url_path: imageFilePath(event.data),
        public: false,
        species_id: null,
        breed_ids: [...event.data.breed_ids],
      };
      break;
    case 'ImageLabelled':
      after = before && { ...before, species_id: event.data.species_id };
      break;
    case 'ImageBreedTagged':
    case 'ImageBreedUntagged':
      after = before && { ...before, breed_ids: breedIdsAfter(before.breed_ids, event) };
      break;
    case 'ImagePublicRequestDecided':
      after = before && { ...before, public: before.public || event.data.status === 'approved' };
      break;
    case 'ImagePublished':
      after = before && { ...before, public: true };
      break;
    case 'ImageDeleted':
      after = null;
      break;
    default:
      return;
  }
  if (after) await refs.upsert(after, recorded.position);
  else if (before) await refs.delete(imageId, recorded.position);
  const documents = store.collection<T>(documentsCollection);
  for (const doc of await documents.find({ image_id: imageId })) {
    const fields = imageFieldsFor(after, doc.account_id);
    if (!sameFields(fields, doc)) await documents.upsert({ ...doc, ...fields }, recorded.position);
  }
};

import { imageFilePath } from '../contracts/image-url.ts';
import type { ImageRefDoc } from '../contracts/read-models.ts';
import type { Event } from '../domain/decider.ts';
import { breedIdsAfter, imageEvents, type ImageEvent } from '../domain/images/image.ts';
import type { StreamEvents } from '../domain/stream-events.ts';
import { isFrom, type Recorded } from '../infrastructure/event-store/recorded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { defineProjection, type Projection } from './projection.ts';

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
export const prefetchImageRefs = async (events: readonly Recorded<Event>[], store: ReadStore, refsCollection: string, eventTypes: readonly string[]): Promise<void> => {
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
  event: Recorded<ImageEvent>,
  store: ReadStore,
  refsCollection: string,
  documentsCollection: string,
): Promise<void> => {
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
  if (after) await refs.upsert(after, event.position);
  else if (before) await refs.delete(imageId, event.position);
  const documents = store.collection<T>(documentsCollection);
  for (const doc of await documents.find({ image_id: imageId })) {
    const fields = imageFieldsFor(after, doc.account_id);
    if (!sameFields(fields, doc)) await documents.upsert({ ...doc, ...fields }, event.position);
  }
};

/**
 * A projection whose documents each name an image (votes, favourites): besides the events of its
 * own aggregate (`events`, handed to `apply`), it reads the image streams, which keep its copies
 * of the images (`images`) and the image fields of its documents (`collection`, indexed by
 * image_id) up to date. The images of a batch's `created` events are read in one go beforehand;
 * `imageFields` gives the fields of a document being made.
 */
export const imageLinkedProjection = <E extends Event>(definition: {
  name: string;
  collection: string;
  images: string;
  events: StreamEvents<E>;
  created: E['type'];
  setup: (store: ReadStore) => Promise<void>;
  apply: (event: Recorded<E>, store: ReadStore, imageFields: (imageId: string, accountId: string) => Promise<ImageFields>) => Promise<void>;
}): Projection => {
  const { collection, images } = definition;
  const imageFields = (store: ReadStore) => async (imageId: string, accountId: string) =>
    imageFieldsFor(await store.collection<ImageRefDoc>(images).get(imageId), accountId);
  return defineProjection({
    name: definition.name,
    collections: [collection, images],
    streams: [definition.events, imageEvents],
    async setup(store) {
      await definition.setup(store);
      await store.collection(collection).createIndex('image_id');
    },
    prefetch: (events, store) => prefetchImageRefs(events, store, images, [definition.created]),
    async apply(event, store) {
      if (isFrom(imageEvents, event)) return applyImageEvent(event, store, images, collection);
      if (isFrom(definition.events, event)) return definition.apply(event, store, imageFields(store));
    },
  });
};

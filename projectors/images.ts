import { createHash } from 'node:crypto';
import { Collections, type ImageDoc, type ImageSearchEntryDoc } from '../contracts/read-models.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { imageEvents } from '../domain/images/image.ts';
import { defineProjection } from './projection.ts';
import { uploadedImageDoc } from '../contracts/image-resource.ts';

/** A stable number in [0, 1) from the image id (random order without a random write). */
const randomOf = (imageId: string): number => createHash('sha256').update(imageId).digest().readUInt32BE(0) / 2 ** 32;

const reviewOf = (doc: Pick<ImageDoc, 'status' | 'public' | 'public_request' | 'orientation'>): ImageDoc['review'] => ({
  approved: doc.public,
  public: doc.public,
  pending: doc.public_request?.status === 'pending',
  rejected: doc.public_request?.status === 'rejected',
  flagged: doc.status === 'unsafe',
  is_portrait: doc.orientation === 'portrait',
});

/** The search entries of an image (see ImageSearchEntryDoc): none while it is not public. */
export const searchEntriesOf = (doc: ImageDoc | null): ImageSearchEntryDoc[] => {
  if (!doc || !doc.public) return [];
  const keys = ['all', ...(doc.species_id ? [`species:${doc.species_id}`] : []), ...doc.breed_ids.map((breed) => `breed:${breed}`)];
  return keys.map((key) => ({
    _id: `${key}|${doc.id}`,
    key,
    image_id: doc.id,
    random: doc.random,
    species_id: doc.species_id,
    format: doc.format,
    has_breeds: doc.breed_ids.length > 0,
    breed_ids: doc.breed_ids,
    category_ids: doc.category_ids,
  }));
};

/** Writes the entries `after` stands for, removes those only `before` stood for. */
const syncSearchEntries = async (store: ReadStore, before: ImageDoc | null, after: ImageDoc | null, position: bigint): Promise<void> => {
  const wanted = searchEntriesOf(after);
  const had = searchEntriesOf(before);
  if (wanted.length === 0 && had.length === 0) return;
  const entries = store.collection<ImageSearchEntryDoc>(Collections.imageSearchEntries);
  const keep = new Set(wanted.map((entry) => entry._id));
  for (const entry of had) if (!keep.has(entry._id)) await entries.delete(entry._id, position);
  const same = new Map(had.map((entry) => [entry._id, JSON.stringify(entry)]));
  for (const entry of wanted) if (same.get(entry._id) !== JSON.stringify(entry)) await entries.upsert(entry, position);
};

/** Images, one document each; a deleted image is removed (tombstoned). Public ones also as search entries. */
export const imagesProjection = defineProjection({
  name: 'images',
  collections: [Collections.images, Collections.imageSearchEntries],
  streams: [imageEvents],
  async setup(store) {
    const images = store.collection(Collections.images);
    for (const field of ['sub_id', 'species_id', 'breed_ids', 'status', 'url_token', 'license_family']) await images.createIndex(field);
    // GET /images (the account's own) and /images/search (public ones or the account's own, one
    // index for each side of the $or), in each order_by (ties by _id).
    for (const scope of ['account_id', 'public']) {
      for (const order of ['created_at', 'sub_id', 'breed_ids', 'id']) await images.createIndex({ [scope]: 1, [order]: 1, _id: 1 });
    }
    // Random search: the caller's own images that are not public (query-api/random-images.ts),
    // counted and drawn from here rather than by walking every private image of the catalogue.
    await images.createIndex({ account_id: 1, public: 1, _id: 1 });
    // The console's moderation queues (query-api/routes/admin/moderation.ts), oldest first.
    for (const queue of ['public_request.status', 'unsafe', 'status']) await images.createIndex({ [queue]: 1, created_at: 1, _id: 1 });
    // Random search: the entries of one key in a range of random keys (query-api/fair-sample.ts).
    await store.collection(Collections.imageSearchEntries).createIndex({ key: 1, random: 1 });
  },
  async apply(event, store) {
    const images = store.collection<ImageDoc>(Collections.images);
    const id = event.data.image_id;
    if (event.type === 'ImageUploaded') {
      const doc: ImageDoc = { ...uploadedImageDoc(event.data), random: randomOf(id) };
      await images.upsert(doc, event.position);
      return;
    }
    if (event.type === 'ImageDeleted') {
      // (entry writes are position-guarded like the image's: a replayed event changes neither)
      await syncSearchEntries(store, await images.get(id), null, event.position);
      await images.delete(id, event.position);
      return;
    }
    const doc = await images.get(id);
    if (!doc) return;
    let next: ImageDoc;
    switch (event.type) {
      case 'ImageValidated':
        next = {
          ...doc,
          status: event.data.verdict,
          unsafe: event.data.verdict === 'unsafe',
          unsafe_reasons: event.data.unsafe_reasons,
          moderation_labels: event.data.moderation_labels,
          updated_at: event.data.validated_at,
        };
        break;
      case 'ImageLabelled':
        next = {
          ...doc,
          status: 'labelled',
          labels: event.data.labels,
          species_id: event.data.species_id,
          suggested_breed_ids: event.data.suggested_breed_ids,
          tags: event.data.tags,
          colour_ids: event.data.colour_ids,
          colour_codes: event.data.colour_codes,
          category_ids: event.data.category_ids ?? doc.category_ids,
          orientation: event.data.orientation,
          child_image_ids: event.data.child_image_ids,
          vendor: event.data.vendor,
          analysed_at: event.data.labelled_at,
          updated_at: event.data.labelled_at,
        };
        break;
      case 'ImageBreedTagged':
        next = doc.breed_ids.includes(event.data.breed_id) ? doc : { ...doc, breed_ids: [...doc.breed_ids, event.data.breed_id], updated_at: event.data.tagged_at };
        break;
      case 'ImageBreedUntagged':
        next = { ...doc, breed_ids: doc.breed_ids.filter((breed) => breed !== event.data.breed_id), updated_at: event.data.untagged_at };
        break;
      case 'ImagePublicRequested':
        next = {
          ...doc,
          public_request: {
            id: event.data.request_id,
            status: 'pending',
            request_message: event.data.request_message,
            created_at: event.data.created_at,
            admin_message: null,
            actioned_by_email: null,
            actioned_at: null,
          },
        };
        break;
      case 'ImagePublicRequestDecided':
        next = {
          ...doc,
          public: doc.public || event.data.status === 'approved',
          public_request: doc.public_request && {
            ...doc.public_request,
            status: event.data.status,
            admin_message: event.data.admin_message,
            actioned_by_email: event.data.actioned_by_email,
            actioned_at: event.data.actioned_at,
          },
        };
        break;
      case 'ImagePublished':
        next = { ...doc, public: true, updated_at: event.data.published_at };
        break;
    }
    const after = { ...next, review: reviewOf(next) };
    await images.upsert(after, event.position);
    await syncSearchEntries(store, doc, after, event.position);
  },
});

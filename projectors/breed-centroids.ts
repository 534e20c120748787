import { Collections, type BreedCentroidDoc, type ImageVectorDoc } from '../contracts/read-models.ts';
import { addInto, breedVectorOf, centroidChanges, contributionOf, decodeSum, encodeSum, fixedPointOf, type CentroidChange } from '../domain/images/breed-centroids.ts';
import { breedIdsAfter, imageEvents } from '../domain/images/image.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { defineProjection } from './projection.ts';

/**
 * Breed centroids for the breed suggestions learnt from the catalogue (domain/images/breed-centroids.ts):
 * per image, what it is and what it adds (image_vectors); per scope (public, or one account's
 * images that are not public), species, breed and model, the sum and count of the embeddings of
 * the images with that breed (breed_centroids). Every image event recomputes the image's
 * contribution and applies the difference: labelled (its embedding and species arrive), a breed
 * tagged or untagged, made public (it moves from its account's scope to the public one), deleted
 * (subtracted). O(1) per event in the number of images; a centroid left with no image is removed.
 */
export const breedCentroidsProjection = defineProjection({
  name: 'breed-centroids',
  collections: [Collections.imageVectors, Collections.breedCentroids],
  streams: [imageEvents],
  async setup(store) {
    // the labelling processor's read: one species' centroids of two scopes
    await store.collection(Collections.breedCentroids).createIndex({ species_id: 1, scope: 1, _id: 1 });
    // duplicates (an account's most recently labelled) and similar images (the caller's own and the public ones, most recently labelled)
    const vectors = store.collection(Collections.imageVectors);
    await vectors.createIndex({ account_id: 1, labelled_position: 1, _id: 1 });
    await vectors.createIndex({ public: 1, labelled_position: 1, _id: 1 });
    // the similar-images index of the query API: what changed since it last looked
    await vectors.createIndex({ changed_position: 1, _id: 1 });
  },
  async apply(event, store) {
    const vectors = store.collection<ImageVectorDoc>(Collections.imageVectors);
    const id = event.data.image_id;
    if (event.type === 'ImageUploaded') {
      if (await vectors.get(id)) return;
      const data = event.data;
      await vectors.upsert(
        { _id: id, account_id: data.account_id, species_id: null, breed_ids: [...data.breed_ids], public: false, parent_image_id: data.parent_image_id, embedding: null, labelled_position: null, contribution: null, changed_position: Number(event.position) },
        event.position,
      );
      return;
    }
    const doc = await vectors.get(id);
    if (!doc) return;
    let next: ImageVectorDoc | null;
    switch (event.type) {
      case 'ImageLabelled':
        next = { ...doc, species_id: event.data.species_id, embedding: breedVectorOf(event.data), labelled_position: Number(event.position) };
        break;
      case 'ImageBreedTagged':
      case 'ImageBreedUntagged':
        next = { ...doc, breed_ids: breedIdsAfter(doc.breed_ids, event) };
        break;
      case 'ImagePublicRequestDecided':
        next = event.data.status === 'approved' ? { ...doc, public: true } : doc;
        break;
      case 'ImagePublished':
        next = { ...doc, public: true };
        break;
      case 'ImageDeleted':
        next = null;
        break;
      default:
        return;
    }
    const after = next ? contributionOf(next) : null;
    await applyChanges(store, [
      ...centroidChanges(doc.contribution, null).map((change) => ({ change, embedding: doc.embedding! })),
      ...centroidChanges(null, after).map((change) => ({ change, embedding: next!.embedding! })),
    ], event.position);
    if (next) await vectors.upsert({ ...next, contribution: after, changed_position: Number(event.position) }, event.position);
    else await vectors.delete(id, event.position);
  },
});

/**
 * Applies the changes, merged per centroid first (one write per document and event: the position
 * guard would ignore a second one). Removing a contribution and adding the same one back cancels out.
 */
const applyChanges = async (store: ReadStore, changes: { change: CentroidChange; embedding: NonNullable<ImageVectorDoc['embedding']> }[], position: bigint): Promise<void> => {
  const merged = new Map<string, { change: CentroidChange; count: number; sum: Float64Array }>();
  for (const { change, embedding } of changes) {
    const vector = fixedPointOf(embedding);
    const entry = merged.get(change.key) ?? { change, count: 0, sum: new Float64Array(vector.length) };
    entry.count += change.sign;
    addInto(entry.sum, vector, change.sign);
    merged.set(change.key, entry);
  }
  const centroids = store.collection<BreedCentroidDoc>(Collections.breedCentroids);
  for (const { change, count, sum } of merged.values()) {
    if (count === 0 && sum.every((value) => value === 0)) continue;
    const doc = await centroids.get(change.key);
    const total = doc ? addInto(decodeSum(doc.sum), sum, 1) : sum;
    const n = (doc?.count ?? 0) + count;
    if (n <= 0) await centroids.delete(change.key, position);
    else
      await centroids.upsert(
        { _id: change.key, scope: change.scope, species_id: change.species_id, breed_id: change.breed_id, model: change.model, count: n, sum: encodeSum(total) },
        position,
      );
  }
};

import { Collections } from '../contracts/read-models.ts';
import type { BcsReviewDoc } from '../contracts/body-condition.ts';
import { bcsReviewEvents, bcsReviewViewOf } from '../domain/pet-analyses/bcs-review.ts';
import { defineProjection } from './projection.ts';

/** Vet reviews of body condition scores: one document per review, as its latest event describes it. */
export const bcsReviewsProjection = defineProjection({
  name: 'bcs-reviews',
  collections: [Collections.bcsReviews],
  streams: [bcsReviewEvents],
  async setup(store) {
    const reviews = store.collection(Collections.bcsReviews);
    // A pet's reviews newest first; the vets' list oldest first, all or of one status.
    await reviews.createIndex({ pet_id: 1, requested_at: 1 });
    await reviews.createIndex({ status: 1, requested_at: 1 });
    await reviews.createIndex({ requested_at: 1 });
  },
  async apply(event, store) {
    if (event.type !== 'BcsReviewRequested' && event.type !== 'BcsReviewed') return;
    const review = bcsReviewViewOf(event);
    await store.collection<BcsReviewDoc>(Collections.bcsReviews).upsert({ ...review, _id: review.id, account_id: event.data.account_id }, event.position);
  },
});

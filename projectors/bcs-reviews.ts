import { Collections } from '../contracts/read-models.ts';
import type { BcsReviewDoc } from '../contracts/body-condition.ts';
import { bcsReviewViewOf, type BcsReviewEvent } from '../domain/pet-analyses/bcs-review.ts';
import { defineProjection } from './projection.ts';

/** Vet reviews of body condition scores: one document per review, as its latest event describes it. */
export const bcsReviewsProjection = defineProjection({
  name: 'bcs-reviews',
  collections: [Collections.bcsReviews],
  streamPrefixes: ['bcsreview-'],
  async setup(store) {
    await store.collection(Collections.bcsReviews).createIndex('pet_id');
    await store.collection(Collections.bcsReviews).createIndex('status');
  },
  async apply(recorded, store) {
    const event = recorded as unknown as BcsReviewEvent;
    if (event.type !== 'BcsReviewRequested' && event.type !== 'BcsReviewed') return;
    const review = bcsReviewViewOf(event);
    await store.collection<BcsReviewDoc>(Collections.bcsReviews).upsert({ ...review, _id: review.id, account_id: event.data.account_id }, recorded.position);
  },
});

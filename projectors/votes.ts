import { Collections, type ImageRefDoc, type VoteDoc } from '../contracts/read-models.ts';
import type { VoteEvent } from '../domain/votes/vote.ts';
import { defineProjection } from './projection.ts';
import { applyImageEvent, imageFieldsFor, prefetchImageRefs } from './image-refs.ts';

export const votesProjection = defineProjection({
  name: 'votes',
  collections: [Collections.votes, Collections.voteImages],
  streamPrefixes: ['vote-', 'image-'],
  async setup(store) {
    const votes = store.collection(Collections.votes);
    // GET /votes: the account's votes by id, or one sub_id's (ties by _id); image_id: image-refs.ts.
    await votes.createIndex({ account_id: 1, id: 1, _id: 1 });
    await votes.createIndex({ account_id: 1, sub_id: 1, id: 1, _id: 1 });
    await votes.createIndex('image_id');
  },
  prefetch: (events, store) => prefetchImageRefs(events, store, Collections.voteImages, ['VoteCast']),
  async apply(recorded, store) {
    if (recorded.streamName.startsWith('image-')) return applyImageEvent(recorded, store, Collections.voteImages, Collections.votes);
    const event = recorded as unknown as VoteEvent;
    const votes = store.collection<VoteDoc>(Collections.votes);
    switch (event.type) {
      case 'VoteCast':
        await votes.upsert(
          {
            _id: String(event.data.vote_id),
            id: event.data.vote_id,
            account_id: event.data.account_id,
            image_id: event.data.image_id,
            sub_id: event.data.sub_id,
            value: event.data.value,
            country_code: event.data.country_code,
            created_at: event.data.created_at,
            ...imageFieldsFor(await store.collection<ImageRefDoc>(Collections.voteImages).get(event.data.image_id), event.data.account_id),
          },
          recorded.position,
        );
        return;
      case 'VoteDeleted':
        await votes.delete(String(event.data.vote_id), recorded.position);
        return;
    }
  },
});

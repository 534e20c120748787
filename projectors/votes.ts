import { Collections, type VoteDoc } from '../contracts/read-models.ts';
import { voteEvents } from '../domain/votes/vote.ts';
import { imageLinkedProjection } from './image-refs.ts';

export const votesProjection = imageLinkedProjection({
  name: 'votes',
  collection: Collections.votes,
  images: Collections.voteImages,
  events: voteEvents,
  created: 'VoteCast',
  async setup(store) {
    const votes = store.collection(Collections.votes);
    // GET /votes: the account's votes by id, or one sub_id's (ties by _id); image_id: image-refs.ts.
    await votes.createIndex({ account_id: 1, id: 1, _id: 1 });
    await votes.createIndex({ account_id: 1, sub_id: 1, id: 1, _id: 1 });
    // The caller's own votes on the images of an answer (http/image-views.ts), whatever its number of votes.
    await votes.createIndex({ account_id: 1, image_id: 1, id: 1, _id: 1 });
  },
  async apply(event, store, imageFields) {
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
            ...(await imageFields(event.data.image_id, event.data.account_id)),
          },
          event.position,
        );
        return;
      case 'VoteDeleted':
        await votes.delete(String(event.data.vote_id), event.position);
        return;
    }
  },
});

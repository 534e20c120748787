import { Collections, type VoteDoc } from '../contracts/read-models.ts';
import type { VoteEvent } from '../domain/votes/vote.ts';
import { defineProjection } from './projection.ts';

export const votesProjection = defineProjection({
  name: 'votes',
  collections: [Collections.votes],
  streamPrefixes: ['vote-'],
  async setup(store) {
    await store.collection(Collections.votes).createIndex('account_id');
  },
  async apply(recorded, store) {
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
            image_url: null,
            image_species_id: null,
            image_breed_groups: [],
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

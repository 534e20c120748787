import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

export const voteStream = (voteId: number): string => `vote-${voteId}`;

export type VoteCast = Event<
  'VoteCast',
  {
    vote_id: number;
    account_id: string;
    image_id: string;
    sub_id: string | null;
    value: 1 | -1;
    country_code: string | null;
    ip_address: string | null;
    created_at: string;
  }
>;
export type VoteDeleted = Event<'VoteDeleted', { vote_id: number; account_id: string; deleted_at: string }>;
export type VoteEvent = VoteCast | VoteDeleted;

/** The events of `vote-…` streams, told apart where they are read back. */
export const voteEvents = streamEvents<VoteEvent>('vote', { VoteCast: true, VoteDeleted: true });

export type VoteState =
  | { status: 'none' }
  | { status: 'cast' | 'deleted'; voteId: number; accountId: string };

export const initialVoteState = (): VoteState => ({ status: 'none' });

export const evolveVote = (state: VoteState, event: VoteEvent): VoteState => {
  switch (event.type) {
    case 'VoteCast':
      return { status: 'cast', voteId: event.data.vote_id, accountId: event.data.account_id };
    case 'VoteDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
  }
};

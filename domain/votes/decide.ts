import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { evolveVote, initialVoteState, type VoteEvent, type VoteState } from './vote.ts';

export type VoteCommand =
  | {
      type: 'CastVote';
      vote_id: number;
      account_id: string;
      image_id: string;
      sub_id: string | null;
      value: number;
      country_code: string | null;
      ip_address: string | null;
      now: string;
    }
  | { type: 'DeleteVote'; account_id: string; now: string };

export const decideVote = (command: VoteCommand, state: VoteState): VoteEvent[] => {
  switch (command.type) {
    case 'CastVote': {
      if (state.status !== 'none') throw new DomainError('conflict', `vote ${command.vote_id} already exists`);
      if (command.value !== 1 && command.value !== -1) {
        throw new DomainError('validation_failed', 'value must be 1 or -1', { details: ['value must be 1 (up) or -1 (down)'] });
      }
      return [
        {
          type: 'VoteCast',
          data: {
            vote_id: command.vote_id,
            account_id: command.account_id,
            image_id: command.image_id,
            sub_id: command.sub_id,
            value: command.value,
            country_code: command.country_code,
            ip_address: command.ip_address,
            created_at: command.now,
          },
        },
      ];
    }
    case 'DeleteVote': {
      if (state.status !== 'cast') throw new DomainError('not_found', 'vote not found');
      if (state.accountId !== command.account_id) throw new DomainError('forbidden', 'this vote belongs to another account');
      return [{ type: 'VoteDeleted', data: { vote_id: state.voteId, account_id: state.accountId, deleted_at: command.now } }];
    }
  }
};

export const voteDecider: Decider<VoteState, VoteCommand, VoteEvent> = {
  decide: decideVote,
  evolve: evolveVote,
  initialState: initialVoteState,
};

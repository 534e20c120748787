import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { voteDecider } from './decide.ts';
import type { VoteCast } from './vote.ts';

const spec = deciderSpec(voteDecider);
const now = '2026-01-01T00:00:00.000Z';
const cast: VoteCast = {
  type: 'VoteCast',
  data: { vote_id: 7, account_id: 'acc', image_id: 'img', sub_id: 'u1', value: 1, country_code: 'GB', ip_address: null, created_at: now },
};
const castCommand = { type: 'CastVote' as const, vote_id: 7, account_id: 'acc', image_id: 'img', sub_id: 'u1', country_code: 'GB', ip_address: null, now };

describe('vote decider', () => {
  it('casts a vote on a new stream', () => spec.given([]).when({ ...castCommand, value: 1 }).then([cast]));
  it('casts a downvote', () =>
    spec.given([]).when({ ...castCommand, value: -1 }).then([{ ...cast, data: { ...cast.data, value: -1 } }]));
  it('refuses any value but 1 and -1', () => {
    spec.given([]).when({ ...castCommand, value: 0 }).thenThrows('validation_failed');
    spec.given([]).when({ ...castCommand, value: 2 }).thenThrows('validation_failed');
  });
  it('refuses to cast twice on one id (id clash)', () => spec.given([cast]).when({ ...castCommand, value: 1 }).thenThrows('conflict'));
  it('deletes the owner’s vote', () =>
    spec.given([cast]).when({ type: 'DeleteVote', account_id: 'acc', now }).then([
      { type: 'VoteDeleted', data: { vote_id: 7, account_id: 'acc', deleted_at: now } },
    ]));
  it('forbids deleting another account’s vote', () =>
    spec.given([cast]).when({ type: 'DeleteVote', account_id: 'other', now }).thenThrows('forbidden'));
  it('answers not found for a missing or deleted vote', () => {
    spec.given([]).when({ type: 'DeleteVote', account_id: 'acc', now }).thenThrows('not_found');
    spec
      .given([cast, { type: 'VoteDeleted', data: { vote_id: 7, account_id: 'acc', deleted_at: now } }])
      .when({ type: 'DeleteVote', account_id: 'acc', now })
      .thenThrows('not_found');
  });
});

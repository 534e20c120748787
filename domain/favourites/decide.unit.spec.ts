import { describe, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { favouriteClaimDecider, favouriteDecider, STALE_CLAIM_MS } from './decide.ts';
import type { FavouriteClaimed } from './claim.ts';
import type { FavouriteAdded } from './favourite.ts';

const now = '2026-01-01T00:00:00.000Z';
const later = new Date(Date.parse(now) + STALE_CLAIM_MS + 1).toISOString();
const claimSpec = deciderSpec(favouriteClaimDecider);
const favouriteSpec = deciderSpec(favouriteDecider);
const claimed: FavouriteClaimed = {
  type: 'FavouriteClaimed',
  data: { favourite_id: 1, account_id: 'acc', sub_id: 'u', image_id: 'img', claimed_at: now },
};
const claim = (holder: 'none' | 'active' | 'deleted', at = now) => ({
  type: 'ClaimFavourite' as const,
  favourite_id: 2,
  account_id: 'acc',
  sub_id: 'u',
  image_id: 'img',
  holder: holder === 'none' ? { status: 'none' as const } : { status: holder, favouriteId: 1, accountId: 'acc' },
  now: at,
});
const claimedBy2 = (at: string): FavouriteClaimed => ({ type: 'FavouriteClaimed', data: { ...claimed.data, favourite_id: 2, claimed_at: at } });

describe('favourite claim decider (one favourite per account + sub_id + image)', () => {
  it('claims a free triple', () => claimSpec.given([]).when(claim('none')).then([claimedBy2(now)]));
  it('refuses a triple held by an active favourite', () => claimSpec.given([claimed]).when(claim('active')).thenThrows('duplicate_favourite'));
  it('refuses a fresh claim whose favourite is still being written', () =>
    claimSpec.given([claimed]).when(claim('none')).thenThrows('duplicate_favourite'));
  it('takes over a stale claim whose favourite never appeared', () =>
    claimSpec.given([claimed]).when(claim('none', later)).then([claimedBy2(later)]));
  it('takes over a claim on a deleted favourite', () => claimSpec.given([claimed]).when(claim('deleted')).then([claimedBy2(now)]));
  it('claims again after a release', () =>
    claimSpec
      .given([claimed, { type: 'FavouriteReleased', data: { favourite_id: 1, released_at: now } }])
      .when(claim('deleted'))
      .then([claimedBy2(now)]));
  it('releases only its own claim', () => {
    claimSpec.given([claimed]).when({ type: 'ReleaseFavourite', favourite_id: 1, now }).then([
      { type: 'FavouriteReleased', data: { favourite_id: 1, released_at: now } },
    ]);
    claimSpec.given([claimed]).when({ type: 'ReleaseFavourite', favourite_id: 9, now }).thenNothing();
  });
});

describe('favourite decider', () => {
  const added: FavouriteAdded = {
    type: 'FavouriteAdded',
    data: { favourite_id: 1, account_id: 'acc', image_id: 'img', sub_id: 'u', country_code: null, client_ip_address: null, created_at: now },
  };
  it('adds a favourite', () =>
    favouriteSpec
      .given([])
      .when({ type: 'AddFavourite', favourite_id: 1, account_id: 'acc', image_id: 'img', sub_id: 'u', country_code: null, client_ip_address: null, now })
      .then([added]));
  it('soft-deletes the owner’s favourite, once', () => {
    favouriteSpec.given([added]).when({ type: 'DeleteFavourite', account_id: 'acc', now }).then([
      { type: 'FavouriteDeleted', data: { favourite_id: 1, account_id: 'acc', deleted_at: now } },
    ]);
    favouriteSpec
      .given([added, { type: 'FavouriteDeleted', data: { favourite_id: 1, account_id: 'acc', deleted_at: now } }])
      .when({ type: 'DeleteFavourite', account_id: 'acc', now })
      .thenThrows('not_found');
  });
  it('forbids another account', () => favouriteSpec.given([added]).when({ type: 'DeleteFavourite', account_id: 'x', now }).thenThrows('forbidden'));
});

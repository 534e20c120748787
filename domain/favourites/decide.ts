import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import { evolveFavourite, initialFavouriteState, type FavouriteEvent, type FavouriteState } from './favourite.ts';
import { evolveClaim, initialClaimState, type ClaimState, type FavouriteClaimEvent } from './claim.ts';

/**
 * A claim whose favourite never got written (the writer crashed between the two appends) is
 * taken over once it is this old; younger ones may still be completing, so they count as held.
 */
export const STALE_CLAIM_MS = 30_000;

export type ClaimCommand =
  | {
      type: 'ClaimFavourite';
      favourite_id: number;
      account_id: string;
      sub_id: string | null;
      image_id: string;
      /** State of the favourite the claim currently points at, if any. */
      holder: FavouriteState;
      now: string;
    }
  | { type: 'ReleaseFavourite'; favourite_id: number; now: string };

export const decideClaim = (command: ClaimCommand, state: ClaimState): FavouriteClaimEvent[] => {
  switch (command.type) {
    case 'ClaimFavourite': {
      if (state.holder !== null) {
        const holderActive = command.holder.status === 'active';
        const holderPending =
          command.holder.status === 'none' &&
          state.claimedAt !== null &&
          Date.parse(command.now) - Date.parse(state.claimedAt) < STALE_CLAIM_MS;
        if (holderActive || holderPending) {
          throw new DomainError('duplicate_favourite', 'this image is already a favourite for this account and sub_id', {
            extra: { favourite_id: state.holder },
          });
        }
      }
      return [
        {
          type: 'FavouriteClaimed',
          data: {
            favourite_id: command.favourite_id,
            account_id: command.account_id,
            sub_id: command.sub_id,
            image_id: command.image_id,
            claimed_at: command.now,
          },
        },
      ];
    }
    case 'ReleaseFavourite':
      return state.holder === command.favourite_id
        ? [{ type: 'FavouriteReleased', data: { favourite_id: command.favourite_id, released_at: command.now } }]
        : [];
  }
};

export const favouriteClaimDecider: Decider<ClaimState, ClaimCommand, FavouriteClaimEvent> = {
  decide: decideClaim,
  evolve: evolveClaim,
  initialState: initialClaimState,
};

export type FavouriteCommand =
  | {
      type: 'AddFavourite';
      favourite_id: number;
      account_id: string;
      image_id: string;
      sub_id: string | null;
      country_code: string | null;
      client_ip_address: string | null;
      now: string;
    }
  | { type: 'DeleteFavourite'; account_id: string; now: string };

export const decideFavourite = (command: FavouriteCommand, state: FavouriteState): FavouriteEvent[] => {
  switch (command.type) {
    case 'AddFavourite': {
      if (state.status !== 'none') throw new DomainError('conflict', `favourite ${command.favourite_id} already exists`);
      const { type: _type, now, ...data } = command;
      return [{ type: 'FavouriteAdded', data: { ...data, created_at: now } }];
    }
    case 'DeleteFavourite': {
      if (state.status !== 'active') throw new DomainError('not_found', 'favourite not found');
      if (state.accountId !== command.account_id) throw new DomainError('forbidden', 'this favourite belongs to another account');
      return [
        {
          type: 'FavouriteDeleted',
          data: { favourite_id: state.favouriteId, account_id: state.accountId, deleted_at: command.now },
        },
      ];
    }
  }
};

export const favouriteDecider: Decider<FavouriteState, FavouriteCommand, FavouriteEvent> = {
  decide: decideFavourite,
  evolve: evolveFavourite,
  initialState: initialFavouriteState,
};

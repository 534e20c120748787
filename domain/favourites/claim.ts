import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * The uniqueness rule "one favourite per account + sub_id + image" is a stream of its own:
 * whoever appends FavouriteClaimed at the claim stream's expected revision holds the claim.
 * The claim key is the caller's hash of (account, sub_id, image), so the stream name stays short.
 */
export const favouriteClaimStream = (claimKey: string): string => `favouriteclaim-${claimKey}`;

export type FavouriteClaimed = Event<
  'FavouriteClaimed',
  { favourite_id: number; account_id: string; sub_id: string | null; image_id: string; claimed_at: string }
>;
export type FavouriteReleased = Event<'FavouriteReleased', { favourite_id: number; released_at: string }>;
export type FavouriteClaimEvent = FavouriteClaimed | FavouriteReleased;

/** The events of `favouriteclaim-…` streams, told apart where they are read back. */
export const favouriteClaimEvents = streamEvents<FavouriteClaimEvent>('favouriteclaim', { FavouriteClaimed: true, FavouriteReleased: true });

export type ClaimState = { holder: number | null; claimedAt: string | null };

export const initialClaimState = (): ClaimState => ({ holder: null, claimedAt: null });

export const evolveClaim = (state: ClaimState, event: FavouriteClaimEvent): ClaimState => {
  switch (event.type) {
    case 'FavouriteClaimed':
      return { holder: event.data.favourite_id, claimedAt: event.data.claimed_at };
    case 'FavouriteReleased':
      return event.data.favourite_id === state.holder ? { holder: null, claimedAt: null } : state;
  }
};

import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

export const favouriteStream = (favouriteId: number): string => `favourite-${favouriteId}`;

export type FavouriteAdded = Event<
  'FavouriteAdded',
  {
    favourite_id: number;
    account_id: string;
    image_id: string;
    sub_id: string | null;
    country_code: string | null;
    client_ip_address: string | null;
    created_at: string;
  }
>;
export type FavouriteDeleted = Event<'FavouriteDeleted', { favourite_id: number; account_id: string; deleted_at: string }>;
export type FavouriteEvent = FavouriteAdded | FavouriteDeleted;

/** The events of `favourite-…` streams, told apart where they are read back. */
export const favouriteEvents = streamEvents<FavouriteEvent>('favourite', { FavouriteAdded: true, FavouriteDeleted: true });

export type FavouriteState =
  | { status: 'none' }
  | { status: 'active' | 'deleted'; favouriteId: number; accountId: string };

export const initialFavouriteState = (): FavouriteState => ({ status: 'none' });

export const evolveFavourite = (state: FavouriteState, event: FavouriteEvent): FavouriteState => {
  switch (event.type) {
    case 'FavouriteAdded':
      return { status: 'active', favouriteId: event.data.favourite_id, accountId: event.data.account_id };
    case 'FavouriteDeleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
  }
};

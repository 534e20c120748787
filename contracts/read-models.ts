/**
 * The read models: the documents projectors write and the query API reads. Both sides import
 * the shapes and names from here and from nowhere else.
 */
export const Collections = {
  accounts: 'accounts',
  apiKeys: 'api_keys',
  votes: 'votes',
  favourites: 'favourites',
} as const;

/** Projections (checkpoint names) the query API waits on for read-your-writes. */
export const READ_MODEL_PROJECTIONS = ['accounts', 'votes', 'favourites'] as const;

export type AccountDoc = {
  _id: string;
  account_id: string;
  name: string;
  email: string | null;
  active: boolean;
  features: string[];
  switched_off: string[];
  created_at: string;
};

export type ApiKeyDoc = { _id: string; key_id: string; account_id: string; revoked: boolean };

export type VoteDoc = {
  _id: string;
  id: number;
  account_id: string;
  image_id: string;
  sub_id: string | null;
  value: number;
  country_code: string | null;
  created_at: string;
  /** Filled from the image once images exist; null while unknown. */
  image_url: string | null;
  image_species_id: string | null;
  image_breed_groups: string[];
};

export type FavouriteDoc = {
  _id: string;
  id: number;
  account_id: string;
  image_id: string;
  sub_id: string | null;
  country_code: string | null;
  created_at: string;
  deleted: boolean;
  deleted_at: string | null;
  image_url: string | null;
  image_species_id: string | null;
  image_breed_groups: string[];
};

/**
 * The read models: the documents projectors write and the query API reads. Both sides import
 * the shapes and names from here and from nowhere else.
 */
import { REFERENCE_COLLECTIONS } from './reference-read-models.ts';
import { PET_COLLECTIONS, RESPIRATORY_RATE_COLLECTIONS } from './pet-read-models.ts';

export * from './reference-read-models.ts';
export * from './pet-read-models.ts';

export const Collections = {
  accounts: 'accounts',
  apiKeys: 'api_keys',
  votes: 'votes',
  favourites: 'favourites',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhook_deliveries',
  ...REFERENCE_COLLECTIONS,
  ...PET_COLLECTIONS,
  ...RESPIRATORY_RATE_COLLECTIONS,
} as const;

/** Projections (checkpoint names) the query API waits on for read-your-writes. */
export const READ_MODEL_PROJECTIONS = [
  'accounts',
  'votes',
  'favourites',
  'webhooks',
  'webhook_deliveries',
  // reference data (breeds, colours and care tips · facts · health tips · categories · legislation)
  'breeds',
  'facts',
  'health-tips',
  'categories',
  'legislation',
  'pets',
  'respiratory-rates',
] as const;

export type AccountDoc = {
  _id: string;
  account_id: string;
  name: string;
  email: string | null;
  active: boolean;
  features: string[];
  switched_off: string[];
  created_at: string;
  /** Absent until a plan is set (PlanChanged). */
  plan?: string;
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

/** A webhook endpoint (never its secret, not even encrypted). Deleted endpoints are removed. */
export type WebhookDoc = {
  _id: string;
  id: string;
  account_id: string;
  url: string;
  description: string;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  legacy_unsigned: boolean;
  consecutive_failures: number;
  created_at: string;
  disabled_at: string | null;
  secret_rotated_at: string | null;
};

export type WebhookAttemptDoc = {
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  outcome: 'succeeded' | 'retrying' | 'failed';
};

/** One event delivered to one endpoint; `status: pending` + `next_attempt_at` is the dispatcher's to-do list. */
export type WebhookDeliveryDoc = {
  _id: string;
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed' | 'abandoned';
  created_at: string;
  updated_at: string;
  next_attempt_at: string | null;
  status_reason: string | null;
  attempts: WebhookAttemptDoc[];
  payload: Record<string, unknown>;
};

/**
 * The read models: the documents projectors write and the query API reads. Both sides import
 * the shapes and names from here and from nowhere else.
 */
import { REFERENCE_COLLECTIONS } from './reference-read-models.ts';
import type { FractionBox, ImageBlobKeys, ImageFormat, ImageLabel, ImageStatus, ModerationLabel } from '../domain/images/image.ts';
import { PET_COLLECTIONS, RESPIRATORY_RATE_COLLECTIONS } from './pet-read-models.ts';
import { BCS_REVIEW_COLLECTIONS } from './body-condition.ts';
import type { ImageEmbedding } from '../domain/images/embedding.ts';
import type { CentroidContribution } from '../domain/images/breed-centroids.ts';
import type { ImageAttribution, LicenseFamily } from '../domain/images/attribution.ts';

export * from './reference-read-models.ts';
export * from './pet-read-models.ts';

export const Collections = {
  accounts: 'accounts',
  apiKeys: 'api_keys',
  votes: 'votes',
  favourites: 'favourites',
  webhooks: 'webhooks',
  webhookDeliveries: 'webhook_deliveries',
  usageRecords: 'usage_records',
  images: 'images',
  /** The public images as random search draws them (owned by the images projection). */
  imageSearchEntries: 'image_search_entries',
  uploadQuotas: 'upload_quotas',
  /** What the votes and favourites projections know of each image (their own copies: projections never read each other's). */
  voteImages: 'vote_images',
  favouriteImages: 'favourite_images',
  /** Public images per breed, for the breeds' reference_image_id (owned by the breeds projection). */
  breedImages: 'breed_images',
  breedReferenceCandidates: 'breed_reference_candidates',
  /** Each image's embedding, breeds and scope as the breed-centroids projection keeps them. */
  imageVectors: 'image_vectors',
  /** Per-breed sums of the embeddings of labelled images, per scope (public, or one account) and species. */
  breedCentroids: 'breed_centroids',
  ...REFERENCE_COLLECTIONS,
  ...PET_COLLECTIONS,
  ...RESPIRATORY_RATE_COLLECTIONS,
  ...BCS_REVIEW_COLLECTIONS,
} as const;

/** Projections (checkpoint names) the query API waits on for read-your-writes. */
export const READ_MODEL_PROJECTIONS = [
  'accounts',
  'votes',
  'favourites',
  'webhooks',
  'webhook_deliveries',
  'usage',
  'images',
  'upload_quotas',
  // reference data (breeds, colours and care tips · facts · health tips · categories · legislation)
  'breeds',
  'facts',
  'health-tips',
  'categories',
  'legislation',
  'pets',
  'respiratory-rates',
  'bcs-reviews',
  'breed-centroids',
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

/** One image as the votes and favourites projections keep it (collections vote_images, favourite_images). */
export type ImageRefDoc = {
  _id: string;
  account_id: string;
  /** `/v1/images/files/<url_token>.<format>` */
  url_path: string;
  public: boolean;
  species_id: string | null;
  breed_ids: string[];
};

/**
 * One image as the breed-centroids projection keeps it: what it is (owner, species, breeds,
 * public, its embedding) and what it adds to the breed centroids now (so a change subtracts exactly that).
 */
export type ImageVectorDoc = {
  _id: string;
  account_id: string;
  species_id: string | null;
  breed_ids: string[];
  public: boolean;
  parent_image_id: string | null;
  /** the vector it is placed by for its breeds (breedVectorOf) */
  embedding: ImageEmbedding | null;
  /** the position of its ImageLabelled event (as a number), null until labelled: the most recent first for duplicate checks */
  labelled_position: number | null;
  contribution: CentroidContribution | null;
  /**
   * The position (as a number) of the last event that changed it: the similar-images index in
   * the query API reads what changed since it last looked. Absent on documents written before it.
   */
  changed_position?: number;
};

/**
 * One breed's centroid in one scope (`public`, or an account id: that account's images that are
 * not public), species and embedding model: the fixed-point sum of its images' embeddings
 * (base64 float64, domain/images/breed-centroids.ts) and their count. `_id` is centroidKey(...).
 */
export type BreedCentroidDoc = { _id: string; scope: string; species_id: string; breed_id: string; model: string; count: number; sum: string };

/**
 * One image as the breeds projection keeps it: its breeds, from which position on it is public,
 * and what the choice of a reference image weighs (domain/images/reference-image.ts). Documents
 * written before the choice weighed anything lack the last four (read as false, false, null, 0).
 */
export type BreedImageDoc = {
  _id: string;
  breed_ids: string[];
  public_since: number | null;
  unsafe?: boolean;
  child?: boolean;
  species_id?: string | null;
  confidence?: number;
};

/**
 * One image that may be a breed's reference image (public, not unsafe, not a child crop), once per
 * breed tagged on it: `_id` is `<breed_id>|<image_id>`. Scalar fields only, so the best candidate
 * of a breed is one indexed read, however many images the catalogue holds.
 */
export type BreedReferenceCandidateDoc = {
  _id: string;
  breed_id: string;
  image_id: string;
  species_id: string | null;
  confidence: number;
  public_since: number;
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
  /**
   * Filled from the image once it is known here and visible to the vote's account (its own, or
   * public): the file path (`/v1/images/files/…`), made absolute when answering; null otherwise.
   */
  image_url: string | null;
  image_species_id: string | null;
  /** Breeds tagged on the image (breed-group filters resolve the groups to breed ids). */
  image_breed_ids: string[];
};

/** What `GET /accounts/usage` counts. */
export type UsageKind = 'votes' | 'favourites' | 'images' | 'pets';

/**
 * One record an account created (a vote, favourite, image or pet), kept whatever happened to the
 * record later: usage counts what was created in a window, and a delete does not undo a creation.
 */
export type UsageRecordDoc = {
  _id: string;
  kind: UsageKind;
  account_id: string;
  sub_id: string | null;
  created_at: string;
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
  /** As on VoteDoc: the image's file path once known and visible to the account, its species and breeds. */
  image_url: string | null;
  image_species_id: string | null;
  image_breed_ids: string[];
};

/** A webhook endpoint (never its secret, not even encrypted). Deleted endpoints are removed. */
export type WebhookDoc = {
  _id: string;
  id: string;
  account_id: string;
  url: string;
  /** null when none was given (and on endpoints registered before names existed). */
  name?: string | null;
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
  /** How it was signed (attempts recorded in attempt records; absent on older ones). */
  signature?: { t: number; secret_id: string } | null;
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
  /** Attempts in the current round (a redelivery starts a new one); absent on documents projected before it was kept. */
  round_attempts?: number;
  payload: Record<string, unknown>;
};

/**
 * One image (projection `images`, from the `image-<id>` stream). Deleted images are removed.
 * Everything the search filters and the answers need is on the document; breed/category/colour
 * records are joined from the reference read models when answering.
 */
/**
 * A public image as the random image search draws it: one entry per key the search narrows by —
 * `all`, `species:<id>` when the species is known, `breed:<id>` per breed tagged — each with the
 * image's random key (ImageDoc.random) and the fields the search also filters on, all but the
 * arrays scalar. `_id` is `<key>|<image id>`. Indexed by (key, random): a search reads the entries
 * of a narrow range of random keys of one key, never the whole set (query-api/fair-sample.ts).
 */
export type ImageSearchEntryDoc = {
  _id: string;
  key: string;
  image_id: string;
  random: number;
  species_id: string | null;
  format: string;
  has_breeds: boolean;
  breed_ids: string[];
  category_ids: string[];
};

export type ImageDoc = {
  _id: string;
  id: string;
  account_id: string;
  sub_id: string | null;
  /** '1' cat, '2' dog, '3' horse — from labelling (detected animal); null until labelled or when none. */
  species_id: string | null;
  /** Breeds tagged on the image (named at upload or tagged later). */
  breed_ids: string[];
  /** The classifier's breed classes mapped to our breed ids, best first (not tagged). */
  suggested_breed_ids: string[];
  category_ids: string[];
  /** Dominant colours mapped to the colour vocabulary: ids (`cat-blk`) and upper-case codes (`BLK`). */
  colour_ids: string[];
  colour_codes: string[];
  mime_type: string;
  format: ImageFormat;
  width: number;
  height: number;
  bytes: number;
  age_months: number | null;
  original_filename: string | null;
  status: ImageStatus;
  unsafe_reasons: string[];
  moderation_labels: ModerationLabel[];
  labels: ImageLabel[];
  tags: string[];
  orientation: 'landscape' | 'portrait' | 'square' | null;
  /** Approved public request: the image is in everyone's search. */
  public: boolean;
  /** The safety check found it unsafe (kept after labelling, which moves `status` on); absent on images validated before it was kept. */
  unsafe?: boolean;
  review: { approved: boolean; public: boolean; pending: boolean; rejected: boolean; flagged: boolean; is_portrait: boolean };
  public_request: {
    id: string;
    status: 'pending' | 'approved' | 'rejected';
    request_message: string | null;
    created_at: string;
    admin_message: string | null;
    actioned_by_email: string | null;
    actioned_at: string | null;
  } | null;
  /** The unguessable public address is `/v1/images/files/<url_token>.<format>` (see contracts/images.ts `imageUrl`). */
  url_token: string;
  blob_keys: ImageBlobKeys;
  parent_image_id: string | null;
  crop_box: FractionBox | null;
  child_image_ids: string[];
  /** Analysis (labelling) vendor and time; null until labelled. */
  vendor: string | null;
  analysed_at: string | null;
  created_at: string;
  updated_at: string;
  /** A random number in [0, 1) drawn at upload, for cheap random orders. */
  random: number;
  /** Licence, author, source and title (catalogue imports); null when unknown (absent on documents projected before attribution). */
  attribution?: ImageAttribution | null;
  /** The licence's family (`cc-by-sa`, `cc0`, …: domain/images/attribution.ts), indexed for `license=`; null without a licence. */
  license_family?: LicenseFamily | null;
};

/** The monthly upload quota of one account (projection `upload_quotas`, from `quota-<accountId>`). */
export type UploadQuotaDoc = {
  _id: string;
  account_id: string;
  /** null: the deployment default (IMAGE_UPLOAD_QUOTA). */
  quota: number | null;
  /** Uploads per calendar month (UTC), e.g. { '2026-11': 12 }. */
  usage: Record<string, number>;
};

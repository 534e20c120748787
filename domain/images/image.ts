/**
 * The image aggregate: one stream `image-<id>` per image, holding its whole life — the upload,
 * the pipeline verdicts (validation, labelling), breeds tagged on it, requests to make it public,
 * and its deletion. Every event carries `image_id` and `account_id` (the owner) so projectors,
 * processors and the webhook dispatcher never need to read the stream back.
 *
 * Ownership of this folder, for the engineers working on images:
 * - image.ts (this file): every event type, the state and `evolveImage`. Events are defined here
 *   for the whole image life so the state is complete; the upload/pipeline side writes the
 *   upload, validation and labelling commands in decide.ts.
 * - The query side (branch images-read) adds its commands in their own files with their own
 *   deciders sharing this state and evolve — e.g. breeds.ts (TagBreed/UntagBreed ->
 *   ImageBreedTagged/ImageBreedUntagged), public-requests.ts (RequestPublic/DecidePublicRequest
 *   -> ImagePublicRequested/ImagePublicRequestDecided), delete.ts (DeleteImage -> ImageDeleted).
 *   They may add fields to those events (and new events) here; keep evolve total.
 *
 * Pipeline states (spec "States and transitions"): to_be_reviewed -> clean | unsafe -> labelled.
 */
import type { ImageEmbedding } from './embedding.ts';
import type { ImageAttribution } from './attribution.ts';
import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

export const imageStream = (imageId: string): string => `image-${imageId}`;

/** Image ids are opaque random strings (base64url); a child image's id is derived from its parent's. */
export const IMAGE_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export type ImageStatus = 'to_be_reviewed' | 'clean' | 'unsafe' | 'labelled';
export type ImageFormat = 'jpg' | 'png' | 'gif' | 'webp';
/** The media type of each format images are stored in (uploads of another type are refused). */
export const MIME_OF: Record<ImageFormat, string> = { jpg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };
export const IMAGE_SIZES = ['thumb', 'small', 'med', 'full'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];
/** The sizes made while an upload is answered; the others are derived from `med` just after it. */
export const UPLOAD_SIZES = ['full', 'med'] as const satisfies readonly ImageSize[];
export const DEFERRED_SIZES = ['small', 'thumb'] as const satisfies readonly ImageSize[];
export type UploadSize = (typeof UPLOAD_SIZES)[number];
export type DeferredSize = (typeof DEFERRED_SIZES)[number];

/** Blob keys of the stored bytes: the original as uploaded, and the derived sizes (JPEG or PNG/WebP kept as uploaded). */
export type ImageBlobKeys = { original: string } & Record<ImageSize, string>;

/** A box as fractions of the image (0..1), origin top-left — TheCatAPI/Rekognition BoundingBox style. */
export type FractionBox = { left: number; top: number; width: number; height: number };

/** One label of the analysis, in TheCatAPI/Rekognition's shape. */
export type ImageLabel = {
  Name: string;
  Confidence: number;
  Instances: { BoundingBox: { Width: number; Height: number; Left: number; Top: number }; Confidence: number }[];
  Parents: { Name: string }[];
};

export type ModerationLabel = { Name: string; Confidence: number; ParentName: string };

export type ImageUploaded = Event<
  'ImageUploaded',
  {
    image_id: string;
    account_id: string;
    sub_id: string | null;
    original_filename: string | null;
    /** Decided from the bytes, never from the client. */
    mime_type: string;
    format: ImageFormat;
    /** Of the stored image (after an optional resize). */
    width: number;
    height: number;
    bytes: number;
    age_months: number | null;
    /** Breeds the uploader named. */
    breed_ids: string[];
    /** Secret part of the public url: `/v1/images/files/<url_token>.<format>`. */
    url_token: string;
    blob_keys: ImageBlobKeys;
    /** upload-sync: crop one child image per animal found. */
    auto_crop: boolean;
    /** Set on a child image (cropped from its parent by auto-crop). */
    parent_image_id: string | null;
    crop_box: FractionBox | null;
    created_at: string;
    /** Licence, author, source and title of the photo (catalogue imports); absent or null when unknown. */
    attribution?: ImageAttribution | null;
    /**
     * A catalogue import to be made public once the pipeline has found it safe and labelled it
     * (ImagePublished, domain/images/catalogue.ts): only the catalogue account's uploads may ask
     * for it, and only with a licence. Absent on every other upload.
     */
    public_when_safe?: boolean;
  }
>;

/** Validation verdict (the moderation model): to_be_reviewed -> clean | unsafe. */
export type ImageValidated = Event<
  'ImageValidated',
  {
    image_id: string;
    account_id: string;
    verdict: 'clean' | 'unsafe';
    unsafe_reasons: string[];
    moderation_labels: ModerationLabel[];
    scores: Record<string, number>;
    threshold: number;
    model: string;
    validated_at: string;
  }
>;

/** Labelling result (classifier + detector + colours): clean | unsafe -> labelled. */
export type ImageLabelled = Event<
  'ImageLabelled',
  {
    image_id: string;
    account_id: string;
    labels: ImageLabel[];
    /** '1' cat, '2' dog, '3' horse; null when no animal was found. */
    species_id: string | null;
    /**
     * Our breed ids suggested for the image, best first: the nearest breed centroids of the
     * catalogue's labelled images (public ones and the uploader's own) blended with the
     * classifier's breed classes mapped by name (before centroids: the by-name map alone).
     */
    suggested_breed_ids: string[];
    /** The same breeds with their confidences (0..1); absent on images labelled before confidences were recorded. */
    suggested_breeds?: { id: string; confidence: number }[];
    /** Free-text tags: label names, dominant colour names, orientation. */
    tags: string[];
    /** Dominant colours mapped to the colour vocabulary (ids like `cat-blk`, codes like `BLK`). */
    colour_ids: string[];
    colour_codes: string[];
    orientation: 'landscape' | 'portrait' | 'square';
    /** Child images cropped from this one (auto-crop), in detection order. */
    child_image_ids: string[];
    vendor: string;
    /**
     * The classifier's pooled features of the main animal's crop (else of the whole image),
     * L2-normalised, int8, with the model that made them; absent on images labelled before
     * embeddings were recorded.
     */
    embedding?: ImageEmbedding;
    /**
     * The classifier's pooled features of the whole image when `embedding` is of a crop (the
     * breed centroids place images by it: breedVectorOf); absent otherwise.
     */
    image_embedding?: ImageEmbedding;
    /**
     * The same account's earlier image this one nearly duplicates (vectors within
     * DUPLICATE_SIMILARITY, domain/images/duplicates.ts), null when none; absent on images
     * labelled before duplicates were looked for.
     */
    duplicate_of?: string | null;
    /**
     * The reference categories (of the image's species) the models saw or the uploader's age
     * implies (domain/images/categories.ts), numeric id order; absent on images labelled before
     * categories were assigned.
     */
    category_ids?: string[];
    labelled_at: string;
  }
>;

export type ImageBreedTagged = Event<'ImageBreedTagged', { image_id: string; account_id: string; breed_id: string; tagged_at: string }>;
export type ImageBreedUntagged = Event<'ImageBreedUntagged', { image_id: string; account_id: string; breed_id: string; untagged_at: string }>;

/** An image's breeds after one was tagged on it (tagging it twice changes nothing) or untagged. */
export const breedIdsAfter = (breedIds: readonly string[], event: ImageBreedTagged | ImageBreedUntagged): string[] => {
  const breedId = event.data.breed_id;
  if (event.type === 'ImageBreedUntagged') return breedIds.filter((id) => id !== breedId);
  return breedIds.includes(breedId) ? [...breedIds] : [...breedIds, breedId];
};

export type ImagePublicRequested = Event<
  'ImagePublicRequested',
  { image_id: string; account_id: string; request_id: string; request_message: string | null; created_at: string }
>;
export type ImagePublicRequestDecided = Event<
  'ImagePublicRequestDecided',
  {
    image_id: string;
    account_id: string;
    request_id: string;
    status: 'approved' | 'rejected';
    admin_message: string | null;
    actioned_by_email: string | null;
    actioned_at: string;
  }
>;

/** A catalogue import made public without a request: safe, labelled and licensed (domain/images/catalogue.ts). */
export type ImagePublished = Event<'ImagePublished', { image_id: string; account_id: string; reason: 'catalogue_import'; published_at: string }>;

export type ImageDeleted = Event<'ImageDeleted', { image_id: string; account_id: string; blob_keys: ImageBlobKeys; deleted_at: string }>;

export type ImageEvent =
  | ImageUploaded
  | ImageValidated
  | ImageLabelled
  | ImageBreedTagged
  | ImageBreedUntagged
  | ImagePublicRequested
  | ImagePublicRequestDecided
  | ImagePublished
  | ImageDeleted;

/** The events of `image-…` streams, told apart where they are read back. */
export const imageEvents = streamEvents<ImageEvent>('image', { ImageUploaded: true, ImageValidated: true, ImageLabelled: true, ImageBreedTagged: true, ImageBreedUntagged: true, ImagePublicRequested: true, ImagePublicRequestDecided: true, ImagePublished: true, ImageDeleted: true });

export const IMAGE_EVENT_TYPES: readonly ImageEvent['type'][] = [
  'ImageUploaded',
  'ImageValidated',
  'ImageLabelled',
  'ImageBreedTagged',
  'ImageBreedUntagged',
  'ImagePublicRequested',
  'ImagePublicRequestDecided',
  'ImagePublished',
  'ImageDeleted',
];

export type PublicRequestState = { request_id: string; status: 'pending' | 'approved' | 'rejected' };

export type ImageState =
  | { exists: false }
  | {
      exists: true;
      imageId: string;
      accountId: string;
      status: ImageStatus;
      /** The safety check's verdict (kept once labelled: labelling runs on unsafe images too); null before it. */
      verdict: 'clean' | 'unsafe' | null;
      /** A catalogue import waiting to be made public once safe and labelled. */
      publicWhenSafe: boolean;
      deleted: boolean;
      autoCrop: boolean;
      parentImageId: string | null;
      blobKeys: ImageBlobKeys;
      breedIds: string[];
      publicRequest: PublicRequestState | null;
      isPublic: boolean;
    };

export const initialImageState = (): ImageState => ({ exists: false });

export const evolveImage = (state: ImageState, event: ImageEvent): ImageState => {
  if (event.type === 'ImageUploaded') {
    const data = event.data;
    return {
      exists: true,
      imageId: data.image_id,
      accountId: data.account_id,
      status: 'to_be_reviewed',
      verdict: null,
      publicWhenSafe: data.public_when_safe === true,
      deleted: false,
      autoCrop: data.auto_crop,
      parentImageId: data.parent_image_id,
      blobKeys: data.blob_keys,
      breedIds: [...data.breed_ids],
      publicRequest: null,
      isPublic: false,
    };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'ImageValidated':
      return { ...state, status: event.data.verdict, verdict: event.data.verdict };
    case 'ImageLabelled':
      return { ...state, status: 'labelled' };
    case 'ImageBreedTagged':
    case 'ImageBreedUntagged':
      return { ...state, breedIds: breedIdsAfter(state.breedIds, event) };
    case 'ImagePublicRequested':
      return { ...state, publicRequest: { request_id: event.data.request_id, status: 'pending' } };
    case 'ImagePublicRequestDecided':
      return {
        ...state,
        publicRequest: { request_id: event.data.request_id, status: event.data.status },
        isPublic: event.data.status === 'approved' ? true : state.isPublic,
      };
    case 'ImagePublished':
      return { ...state, isPublic: true };
    case 'ImageDeleted':
      return { ...state, deleted: true };
  }
};

/** Blob keys of an image: `img.<id>.<size>` (the blob port allows no slashes). */
export const blobKeysFor = (imageId: string): ImageBlobKeys => ({
  original: `img.${imageId}.original`,
  thumb: `img.${imageId}.thumb`,
  small: `img.${imageId}.small`,
  med: `img.${imageId}.med`,
  full: `img.${imageId}.full`,
});

/** A child image's id: stable for (parent, index), so a labelling processor that runs twice makes the same children. */
export const childImageId = (parentImageId: string, index: number): string => `${parentImageId}_c${index}`;

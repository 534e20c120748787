import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * A pet is one stream, `pet-<id>`: its profile, and every media record (photos, videos, later
 * generated portraits) added to it. Keeping the media on the pet's own stream is what makes the
 * per-pet rules atomic: the 24-hour photo limit and the "identical bytes → existing record" rule
 * are decided on the stream's state and appended with its expected revision.
 */
export const petStream = (petId: string): string => `pet-${petId}`;

/** The profile fields a client sets (create and update). Absent = not given; null = cleared. */
export type PetProfile = {
  name: string | null;
  breed_id: string | null;
  species_id: string | null;
  /** The breed's group, copied from the breed record when the breed is set (for the breed_groups filters). */
  breed_group: string | null;
  description: string | null;
  microchip_id: string | null;
  sub_id: string | null;
  country: string | null;
  date_of_birth: string | null;
  /** Age as the owner gave it (instead of a date of birth), as of `age_recorded_at`. */
  age_years: number | null;
  age_months: number | null;
  age_recorded_at: string | null;
  body_condition_score: number | null;
};

export const PROFILE_FIELDS = [
  'name',
  'breed_id',
  'species_id',
  'breed_group',
  'description',
  'microchip_id',
  'sub_id',
  'country',
  'date_of_birth',
  'age_years',
  'age_months',
  'age_recorded_at',
  'body_condition_score',
] as const satisfies readonly (keyof PetProfile)[];

export const POSES = ['front', 'side', 'back', 'top', 'face', 'other'] as const;
export type Pose = (typeof POSES)[number];

export type MediaKind = 'photo' | 'video' | 'portrait';
export type ReviewStatus = 'pending' | 'clean' | 'rejected';

/** One stored media record, as its event carries it. */
export type PetMedia = {
  media_id: string;
  kind: MediaKind;
  blob_key: string;
  /** SHA-256 of the bytes: the same bytes sent again to the same pet name this record. */
  content_hash: string;
  mime_type: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  pose: Pose | null;
  age_years: number | null;
  age_months: number | null;
  /** The pet's age in months when the media was taken (given, or derived from the profile). */
  pet_age_months: number | null;
  description: string | null;
  original_filename: string | null;
  /** Videos: what ffprobe found. */
  duration_seconds: number | null;
  video_codec: string | null;
  container: string | null;
  review_status: ReviewStatus;
  created_at: string;
  /** Generated portraits: the style they were drawn in. */
  portrait_style_id?: string | null;
};

export type PetRegistered = Event<'PetRegistered', { pet_id: string; account_id: string; profile: PetProfile; registered_at: string }>;
export type PetUpdated = Event<'PetUpdated', { pet_id: string; account_id: string; changes: Partial<PetProfile>; updated_at: string }>;
export type PetRemoved = Event<'PetRemoved', { pet_id: string; account_id: string; blob_keys: string[]; removed_at: string }>;
/** A batch of new photos (one event, so a batch is stored whole or not at all). */
export type PetPhotosAdded = Event<'PetPhotosAdded', { pet_id: string; account_id: string; media: PetMedia[]; added_at: string }>;
export type PetVideoAdded = Event<'PetVideoAdded', { pet_id: string; account_id: string; media: PetMedia; added_at: string }>;
/** The safety validation's verdict on a photo (appended by a processor). */
export type PetMediaReviewed = Event<
  'PetMediaReviewed',
  { pet_id: string; media_id: string; review_status: Exclude<ReviewStatus, 'pending'>; reasons: string[]; reviewed_at: string }
>;

/** A portrait generated from one of the pet's photos (appended by the portrait processor). */
export type PetPortraitAdded = Event<'PetPortraitAdded', { pet_id: string; account_id: string; media: PetMedia; added_at: string }>;

export type PetEvent = PetRegistered | PetUpdated | PetRemoved | PetPhotosAdded | PetVideoAdded | PetMediaReviewed | PetPortraitAdded;

/** The events of `pet-…` streams, told apart where they are read back. */
export const petEvents = streamEvents<PetEvent>('pet', { PetRegistered: true, PetUpdated: true, PetRemoved: true, PetPhotosAdded: true, PetVideoAdded: true, PetMediaReviewed: true, PetPortraitAdded: true });

export type PetState =
  | { status: 'none' }
  | {
      status: 'active' | 'removed';
      petId: string;
      accountId: string;
      profile: PetProfile;
      /** Every media record by id, and media id by content hash (photos and videos). */
      media: Map<string, PetMedia>;
      byHash: Map<string, string>;
      /** When each new photo was added, oldest first (for the 24-hour rule). */
      photoTimes: string[];
      createdAt: string;
      updatedAt: string;
    };

export const initialPetState = (): PetState => ({ status: 'none' });

export const evolvePet = (state: PetState, event: PetEvent): PetState => {
  switch (event.type) {
    case 'PetRegistered':
      return {
        status: 'active',
        petId: event.data.pet_id,
        accountId: event.data.account_id,
        profile: event.data.profile,
        media: new Map(),
        byHash: new Map(),
        photoTimes: [],
        createdAt: event.data.registered_at,
        updatedAt: event.data.registered_at,
      };
    case 'PetUpdated':
      return state.status === 'none' ? state : { ...state, profile: { ...state.profile, ...event.data.changes }, updatedAt: event.data.updated_at };
    case 'PetRemoved':
      return state.status === 'none' ? state : { ...state, status: 'removed' };
    case 'PetPhotosAdded':
    case 'PetVideoAdded':
    case 'PetPortraitAdded': {
      if (state.status === 'none') return state;
      const added = event.type === 'PetPhotosAdded' ? event.data.media : [event.data.media];
      const media = new Map(state.media);
      const byHash = new Map(state.byHash);
      for (const item of added) {
        media.set(item.media_id, item);
        byHash.set(`${item.kind}:${item.content_hash}`, item.media_id);
      }
      const photoTimes =
        event.type === 'PetPhotosAdded' ? [...state.photoTimes, ...added.map(() => event.data.added_at)] : state.photoTimes;
      return { ...state, media, byHash, photoTimes };
    }
    case 'PetMediaReviewed': {
      if (state.status === 'none') return state;
      const item = state.media.get(event.data.media_id);
      if (!item) return state;
      const media = new Map(state.media);
      media.set(item.media_id, { ...item, review_status: event.data.review_status });
      return { ...state, media };
    }
  }
};

import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import {
  evolvePet,
  initialPetState,
  type PetEvent,
  type PetMedia,
  type PetProfile,
  type PetState,
  type ReviewStatus,
} from './pet.ts';
import { ageProblems, normaliseMicrochip, PetLimits } from './rules.ts';

/** Profile fields as a request gives them (absent = not given, null = clear it on update). */
export type ProfileInput = {
  name?: string | null;
  breed_id?: string | null;
  species_id?: string | null;
  description?: string | null;
  microchip_id?: string | null;
  sub_id?: string | null;
  country?: string | null;
  date_of_birth?: string | null;
  age_years?: number | null;
  age_months?: number | null;
  body_condition_score?: number | null;
};

/**
 * What the command side looked up outside the pet's stream: the breed named by breed_id (its
 * species and group, from the breed's own stream; `unknown` when no such breed is published) and
 * whether the country is a real ISO 3166-1 alpha-2 code.
 */
export type ProfileReferences = {
  breed?: { id: string; species_id: string; breed_group: string | null } | 'unknown';
  countryKnown?: boolean;
};

export type PetCommand =
  | { type: 'RegisterPet'; pet_id: string; account_id: string; input: ProfileInput; references: ProfileReferences; now: string }
  | { type: 'UpdatePet'; account_id: string; input: ProfileInput; references: ProfileReferences; now: string }
  | { type: 'RemovePet'; account_id: string; now: string }
  /** New photos (ids drawn by the caller). Identical bytes already on the pet resolve to the existing record. */
  | { type: 'AddPhotos'; account_id: string; photos: PetMedia[]; now: string }
  | { type: 'AddVideo'; account_id: string; video: PetMedia; now: string }
  /** A generated portrait (id drawn from its analysis): recorded once; nothing for a pet removed meanwhile. */
  | { type: 'AddPortrait'; portrait: PetMedia; now: string }
  | { type: 'ReviewMedia'; media_id: string; review_status: Exclude<ReviewStatus, 'pending'>; reasons: string[]; now: string };

/** The owner's live pet, or the error a request about it gets. */
export type LivePet = Exclude<PetState, { status: 'none' }>;

export const ownedPet = (state: PetState, accountId: string): LivePet => {
  if (state.status !== 'active') throw new DomainError('not_found', 'pet not found');
  if (state.accountId !== accountId) throw new DomainError('forbidden', 'this pet belongs to another account');
  return state;
};

const emptyProfile = (): PetProfile => ({
  name: null,
  breed_id: null,
  species_id: null,
  breed_group: null,
  description: null,
  microchip_id: null,
  sub_id: null,
  country: null,
  date_of_birth: null,
  age_years: null,
  age_months: null,
  age_recorded_at: null,
  body_condition_score: null,
});

/**
 * Checks a create or update against the pet as it is (`current`, empty for a create) and returns
 * the fields that change. All problems are reported together (400 validation_failed).
 */
export const profileChanges = (input: ProfileInput, references: ProfileReferences, current: PetProfile, now: string): Partial<PetProfile> => {
  const problems = ageProblems(input, now);
  const changes: Partial<PetProfile> = {};
  const given = <K extends keyof ProfileInput>(key: K) => input[key] !== undefined;

  for (const key of ['name', 'description', 'sub_id'] as const) if (given(key)) changes[key] = input[key] ?? null;
  if (given('body_condition_score')) {
    const score = input.body_condition_score ?? null;
    if (score !== null && (!Number.isInteger(score) || score < PetLimits.bodyConditionScore.min || score > PetLimits.bodyConditionScore.max)) {
      problems.push('body.body_condition_score must be an integer from 1 to 9');
    }
    changes.body_condition_score = score;
  }
  if (given('microchip_id')) {
    if (input.microchip_id) {
      const normalised = normaliseMicrochip(input.microchip_id);
      if (!normalised) {
        problems.push('body.microchip_id must be 15 digits (ISO 11784/11785), 10 hexadecimal characters (older 125 kHz chips) or 9 digits (AVID)');
      }
      changes.microchip_id = normalised;
    } else {
      changes.microchip_id = null;
    }
  }
  if (given('country')) {
    if (input.country && references.countryKnown !== true) problems.push(`body.country '${input.country}' is not an ISO 3166-1 alpha-2 country code`);
    changes.country = input.country ? input.country.toUpperCase() : null;
  }

  // Age: a date of birth replaces a given age and the other way round.
  if (given('date_of_birth') && input.date_of_birth) {
    Object.assign(changes, { date_of_birth: input.date_of_birth, age_years: null, age_months: null, age_recorded_at: null });
  } else if ((input.age_years ?? null) !== null || (input.age_months ?? null) !== null) {
    Object.assign(changes, { date_of_birth: null, age_years: input.age_years ?? 0, age_months: input.age_months ?? 0, age_recorded_at: now });
  } else if (given('date_of_birth') || given('age_years') || given('age_months')) {
    const clearsDate = given('date_of_birth');
    const clearsAge = given('age_years') || given('age_months');
    if (clearsDate) changes.date_of_birth = null;
    if (clearsAge) Object.assign(changes, { age_years: null, age_months: null, age_recorded_at: null });
  }

  // Breed and species: the breed must exist; the species follows the breed or must agree with it.
  let breedSpecies: string | null = current.breed_id !== null ? current.species_id : null;
  if (given('breed_id')) {
    if (input.breed_id) {
      if (references.breed === undefined || references.breed === 'unknown') {
        problems.push(`body.breed_id '${input.breed_id}' is not a known breed`);
      } else {
        changes.breed_id = references.breed.id;
        changes.breed_group = references.breed.breed_group;
        breedSpecies = references.breed.species_id;
      }
    } else {
      Object.assign(changes, { breed_id: null, breed_group: null });
      breedSpecies = null;
    }
  }
  if (given('species_id') && input.species_id) {
    if (breedSpecies !== null && input.species_id !== breedSpecies) {
      problems.push(`body.species_id '${input.species_id}' does not match the breed's species '${breedSpecies}'`);
    }
    changes.species_id = input.species_id;
  } else if (given('species_id')) {
    changes.species_id = breedSpecies;
  } else if (breedSpecies !== null && given('breed_id')) {
    changes.species_id = breedSpecies;
  }

  if (problems.length > 0) throw new DomainError('validation_failed', problems.join('; '), { details: problems });
  return changes;
};

const recentPhotoTimes = (photoTimes: readonly string[], now: string): string[] => {
  const since = new Date(Date.parse(now) - PetLimits.windowHours * 3600_000).toISOString();
  return photoTimes.filter((at) => at > since).sort();
};

/**
 * Seconds until enough counted photos leave the window for `requested` more to fit: for a request
 * one photo over the limit, until the oldest counted one leaves (the Retry-After of the 429).
 */
const secondsUntilRoom = (recent: readonly string[], requested: number, now: string): number => {
  const mustLeave = Math.min(recent.length, Math.max(1, recent.length + requested - PetLimits.photosPerWindow));
  const leavesAt = Date.parse(recent[mustLeave - 1]) + PetLimits.windowHours * 3600_000;
  return Math.max(1, Math.ceil((leavesAt - Date.parse(now)) / 1000));
};

export const decidePet = (command: PetCommand, state: PetState): PetEvent[] => {
  switch (command.type) {
    case 'RegisterPet': {
      if (state.status !== 'none') throw new DomainError('conflict', `pet ${command.pet_id} already exists`);
      const profile = { ...emptyProfile(), ...profileChanges(command.input, command.references, emptyProfile(), command.now) };
      return [{ type: 'PetRegistered', data: { pet_id: command.pet_id, account_id: command.account_id, profile, registered_at: command.now } }];
    }
    case 'UpdatePet': {
      const pet = ownedPet(state, command.account_id);
      const changes = profileChanges(command.input, command.references, pet.profile, command.now);
      return [{ type: 'PetUpdated', data: { pet_id: pet.petId, account_id: pet.accountId, changes, updated_at: command.now } }];
    }
    case 'RemovePet': {
      const pet = ownedPet(state, command.account_id);
      const blobKeys = [...pet.media.values()].map((media) => media.blob_key);
      return [{ type: 'PetRemoved', data: { pet_id: pet.petId, account_id: pet.accountId, blob_keys: blobKeys, removed_at: command.now } }];
    }
    case 'AddPhotos': {
      const pet = ownedPet(state, command.account_id);
      if (command.photos.length > PetLimits.filesPerRequest) {
        throw new DomainError('validation_failed', `at most ${PetLimits.filesPerRequest} images per request`, {
          details: [`body.images must have at most ${PetLimits.filesPerRequest} files`],
        });
      }
      // Identical bytes already on the pet, or twice in this batch, are not new photos.
      const seen = new Set<string>();
      const fresh = command.photos.filter((photo) => {
        const key = `photo:${photo.content_hash}`;
        if (pet.byHash.has(key) || seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      if (fresh.length === 0) return [];
      const recentTimes = recentPhotoTimes(pet.photoTimes, command.now);
      const recent = recentTimes.length;
      if (recent + fresh.length > PetLimits.photosPerWindow) {
        throw new DomainError(
          'pet_upload_rate_exceeded',
          `at most ${PetLimits.photosPerWindow} new photos per pet in ${PetLimits.windowHours} hours: ${recent} uploaded, ${fresh.length} more requested`,
          {
            extra: { limit: PetLimits.photosPerWindow, window_hours: PetLimits.windowHours, recent_uploads: recent, requested: fresh.length },
            retryAfterSeconds: secondsUntilRoom(recentTimes, fresh.length, command.now),
          },
        );
      }
      return [{ type: 'PetPhotosAdded', data: { pet_id: pet.petId, account_id: pet.accountId, media: fresh, added_at: command.now } }];
    }
    case 'AddVideo': {
      const pet = ownedPet(state, command.account_id);
      if (pet.byHash.has(`video:${command.video.content_hash}`)) return [];
      return [{ type: 'PetVideoAdded', data: { pet_id: pet.petId, account_id: pet.accountId, media: command.video, added_at: command.now } }];
    }
    case 'AddPortrait': {
      if (state.status !== 'active' || state.media.has(command.portrait.media_id)) return [];
      return [{ type: 'PetPortraitAdded', data: { pet_id: state.petId, account_id: state.accountId, media: command.portrait, added_at: command.now } }];
    }
    case 'ReviewMedia': {
      if (state.status !== 'active') return [];
      const media = state.media.get(command.media_id);
      // One verdict per photo: a redelivered or repeated review (even one that would now disagree)
      // records nothing, and videos are never reviewed.
      if (!media || media.kind !== 'photo' || media.review_status !== 'pending') return [];
      return [
        {
          type: 'PetMediaReviewed',
          data: { pet_id: state.petId, media_id: command.media_id, review_status: command.review_status, reasons: command.reasons, reviewed_at: command.now },
        },
      ];
    }
  }
};

export const petDecider: Decider<PetState, PetCommand, PetEvent> = {
  decide: decidePet,
  evolve: evolvePet,
  initialState: initialPetState,
};

/** The media record a content hash names on this pet (after a decision: existing or just added). */
export const mediaByHash = (state: PetState, kind: 'photo' | 'video', contentHash: string): PetMedia | null => {
  if (state.status === 'none') return null;
  const id = state.byHash.get(`${kind}:${contentHash}`);
  return id ? (state.media.get(id) ?? null) : null;
};

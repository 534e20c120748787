import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { mediaByHash, petDecider } from './decide.ts';
import type { PetEvent, PetMedia, PetPhotosAdded, PetRegistered } from './pet.ts';
import { foldEvents } from '../decider.ts';
import { monthsBetween, normaliseMicrochip, petAgeMonthsAt } from './rules.ts';

const now = '2026-06-15T12:00:00.000Z';
const spec = deciderSpec(petDecider);
const dog = { id: 'beagle', species_id: '2', breed_group: 'Hound' };

const registered: PetRegistered = {
  type: 'PetRegistered',
  data: {
    pet_id: 'p1',
    account_id: 'acc',
    profile: {
      name: 'Rex',
      breed_id: 'beagle',
      species_id: '2',
      breed_group: 'Hound',
      description: null,
      microchip_id: null,
      sub_id: 'u1',
      country: null,
      date_of_birth: '2024-01-10',
      age_years: null,
      age_months: null,
      age_recorded_at: null,
      body_condition_score: null,
    },
    registered_at: now,
  },
};

const photo = (n: number, hash = `h${n}`): PetMedia => ({
  media_id: `m${n}`,
  kind: 'photo',
  blob_key: `pet-p1-m${n}`,
  content_hash: hash,
  mime_type: 'image/png',
  size_bytes: 10,
  width: 4,
  height: 4,
  pose: null,
  age_years: null,
  age_months: null,
  pet_age_months: null,
  description: null,
  original_filename: null,
  duration_seconds: null,
  video_codec: null,
  container: null,
  review_status: 'pending',
  created_at: now,
});
const photosAdded = (from: number, count: number, at = now): PetPhotosAdded => ({
  type: 'PetPhotosAdded',
  data: { pet_id: 'p1', account_id: 'acc', media: Array.from({ length: count }, (_, i) => photo(from + i)), added_at: at },
});

describe('pet decider: profiles', () => {
  it('registers a pet, taking the species from its breed', () =>
    spec
      .given([])
      .when({ type: 'RegisterPet', pet_id: 'p1', account_id: 'acc', input: { name: 'Rex', breed_id: 'beagle', sub_id: 'u1', date_of_birth: '2024-01-10' }, references: { breed: dog }, now })
      .then([registered]));

  it('refuses a species that contradicts the breed, an unknown breed and an unknown country, all at once', () => {
    try {
      petDecider.decide(
        { type: 'RegisterPet', pet_id: 'p1', account_id: 'acc', input: { breed_id: 'beagle', species_id: '1', country: 'XX' }, references: { breed: dog, countryKnown: false }, now },
        petDecider.initialState(),
      );
      expect.unreachable();
    } catch (error: any) {
      expect(error.code).toBe('validation_failed');
      expect(error.details).toHaveLength(2);
    }
    spec.given([]).when({ type: 'RegisterPet', pet_id: 'p1', account_id: 'acc', input: { breed_id: 'nope' }, references: { breed: 'unknown' }, now }).thenThrows('validation_failed');
  });

  it('refuses a date of birth together with an age, age_months 12, a date in the future and a score of 10', () => {
    const register = (input: object) => ({ type: 'RegisterPet' as const, pet_id: 'p1', account_id: 'acc', input, references: {}, now });
    spec.given([]).when(register({ date_of_birth: '2024-01-01', age_years: 1, age_months: 2 })).thenThrows('validation_failed');
    spec.given([]).when(register({ age_years: 1, age_months: 12 })).thenThrows('validation_failed');
    spec.given([]).when(register({ date_of_birth: '2027-01-01' })).thenThrows('validation_failed');
    spec.given([]).when(register({ date_of_birth: '2024-02-30' })).thenThrows('validation_failed');
    spec.given([]).when(register({ body_condition_score: 10 })).thenThrows('validation_failed');
  });

  it('normalises microchip numbers and refuses malformed ones', () => {
    expect(normaliseMicrochip('985 112 345 678 901')).toBe('985112345678901');
    expect(normaliseMicrochip('0a1b2c3d4e')).toBe('0A1B2C3D4E');
    expect(normaliseMicrochip('AVID*012*345*678')).toBe('012345678');
    expect(normaliseMicrochip('98511234567890')).toBeNull();
    expect(normaliseMicrochip('98511234567890X')).toBeNull();
  });

  it('an update with an age replaces the date of birth, and keeps species and breed consistent', () => {
    spec.given([registered]).when({ type: 'UpdatePet', account_id: 'acc', input: { age_years: 3, age_months: 4 }, references: {}, now }).then([
      {
        type: 'PetUpdated',
        data: { pet_id: 'p1', account_id: 'acc', changes: { date_of_birth: null, age_years: 3, age_months: 4, age_recorded_at: now }, updated_at: now },
      },
    ]);
    spec.given([registered]).when({ type: 'UpdatePet', account_id: 'acc', input: { species_id: '1' }, references: {}, now }).thenThrows('validation_failed');
    spec.given([registered]).when({ type: 'UpdatePet', account_id: 'acc', input: { breed_id: null, species_id: '1' }, references: {}, now }).then([
      { type: 'PetUpdated', data: { pet_id: 'p1', account_id: 'acc', changes: { breed_id: null, breed_group: null, species_id: '1' }, updated_at: now } },
    ]);
  });

  it('forbids another account and answers not_found for a removed pet', () => {
    spec.given([registered]).when({ type: 'UpdatePet', account_id: 'other', input: { name: 'x' }, references: {}, now }).thenThrows('forbidden');
    spec.given([registered]).when({ type: 'RemovePet', account_id: 'other', now }).thenThrows('forbidden');
    const removed: PetEvent = { type: 'PetRemoved', data: { pet_id: 'p1', account_id: 'acc', blob_keys: [], removed_at: now } };
    spec.given([registered, removed]).when({ type: 'RemovePet', account_id: 'acc', now }).thenThrows('not_found');
  });

  it('removing a pet names every blob of its media', () =>
    spec.given([registered, photosAdded(1, 2)]).when({ type: 'RemovePet', account_id: 'acc', now }).then([
      { type: 'PetRemoved', data: { pet_id: 'p1', account_id: 'acc', blob_keys: ['pet-p1-m1', 'pet-p1-m2'], removed_at: now } },
    ]));
});

describe('pet decider: photos', () => {
  it('identical bytes resolve to the existing record: nothing new, not counted', () => {
    spec.given([registered, photosAdded(1, 1)]).when({ type: 'AddPhotos', account_id: 'acc', photos: [{ ...photo(9), content_hash: 'h1' }], now }).thenNothing();
    const state = foldEvents(petDecider, [registered, photosAdded(1, 1)]);
    expect(mediaByHash(state, 'photo', 'h1')?.media_id).toBe('m1');
  });

  it('the same bytes twice in one batch make one record', () =>
    spec.given([registered]).when({ type: 'AddPhotos', account_id: 'acc', photos: [photo(1), { ...photo(2), content_hash: 'h1' }], now }).then([
      { type: 'PetPhotosAdded', data: { pet_id: 'p1', account_id: 'acc', media: [photo(1)], added_at: now } },
    ]));

  it('allows 100 new photos in 24 hours and rejects a batch crossing the limit whole, with the figures', () => {
    spec.given([registered, photosAdded(1, 99)]).when({ type: 'AddPhotos', account_id: 'acc', photos: [photo(500)], now }).then([
      { type: 'PetPhotosAdded', data: { pet_id: 'p1', account_id: 'acc', media: [photo(500)], added_at: now } },
    ]);
    try {
      petDecider.decide({ type: 'AddPhotos', account_id: 'acc', photos: [photo(500), photo(501)], now }, foldEvents(petDecider, [registered, photosAdded(1, 99)]));
      expect.unreachable();
    } catch (error: any) {
      expect(error.code).toBe('pet_upload_rate_exceeded');
      expect(error.extra).toEqual({ limit: 100, window_hours: 24, recent_uploads: 99, requested: 2 });
      // photosAdded gave all 99 the same time: the oldest counted photo leaves the 24-hour window then.
      const addedAt = (photosAdded(1, 99).data as { added_at: string }).added_at;
      expect(error.retryAfterSeconds).toBe(Math.ceil((Date.parse(addedAt) + 24 * 3600_000 - Date.parse(now)) / 1000));
    }
  });

  it('says when the oldest counted photo leaves the window (Retry-After)', () => {
    const hours = (h: number) => new Date(Date.parse(now) - h * 3600_000).toISOString();
    const state = foldEvents(petDecider, [registered, photosAdded(1, 1, hours(20)), photosAdded(2, 99, hours(1))]);
    try {
      petDecider.decide({ type: 'AddPhotos', account_id: 'acc', photos: [photo(500)], now }, state);
      expect.unreachable();
    } catch (error: any) {
      expect(error.code).toBe('pet_upload_rate_exceeded');
      expect(error.retryAfterSeconds).toBe(4 * 3600);
    }
  });

  it('photos older than 24 hours no longer count', () => {
    const yesterday = new Date(Date.parse(now) - 24 * 3600_000 - 1000).toISOString();
    spec.given([registered, photosAdded(1, 100, yesterday)]).when({ type: 'AddPhotos', account_id: 'acc', photos: [photo(500)], now }).then([
      { type: 'PetPhotosAdded', data: { pet_id: 'p1', account_id: 'acc', media: [photo(500)], added_at: now } },
    ]);
  });

  it('a review updates the record once', () => {
    spec.given([registered, photosAdded(1, 1)]).when({ type: 'ReviewMedia', media_id: 'm1', review_status: 'clean', reasons: [], now }).then([
      { type: 'PetMediaReviewed', data: { pet_id: 'p1', media_id: 'm1', review_status: 'clean', reasons: [], reviewed_at: now } },
    ]);
    spec
      .given([registered, photosAdded(1, 1), { type: 'PetMediaReviewed', data: { pet_id: 'p1', media_id: 'm1', review_status: 'clean', reasons: [], reviewed_at: now } }])
      .when({ type: 'ReviewMedia', media_id: 'm1', review_status: 'clean', reasons: [], now })
      .thenNothing();
    spec
      .given([registered, photosAdded(1, 1), { type: 'PetMediaReviewed', data: { pet_id: 'p1', media_id: 'm1', review_status: 'clean', reasons: [], reviewed_at: now } }])
      .when({ type: 'ReviewMedia', media_id: 'm1', review_status: 'rejected', reasons: ['late verdict'], now })
      .thenNothing();
    spec.given([registered, photosAdded(1, 1)]).when({ type: 'ReviewMedia', media_id: 'nope', review_status: 'clean', reasons: [], now }).thenNothing();
    const video = { ...photo(9), kind: 'video' as const, mime_type: 'video/mp4' };
    spec
      .given([registered, { type: 'PetVideoAdded', data: { pet_id: 'p1', account_id: 'acc', media: video, added_at: now } }])
      .when({ type: 'ReviewMedia', media_id: 'm9', review_status: 'rejected', reasons: [], now })
      .thenNothing();
  });
});

describe('pet ages', () => {
  it('counts whole months', () => {
    expect(monthsBetween('2024-01-10', '2026-06-15T00:00:00Z')).toBe(29);
    expect(monthsBetween('2024-01-20', '2024-02-19T00:00:00Z')).toBe(0);
  });
  it('derives the age from the date of birth or from the age given, aged since', () => {
    expect(petAgeMonthsAt(registered.data.profile, now)).toBe(29);
    const byAge = { ...registered.data.profile, date_of_birth: null, age_years: 1, age_months: 2, age_recorded_at: '2026-01-15T00:00:00Z' };
    expect(petAgeMonthsAt(byAge, now)).toBe(19);
  });
});

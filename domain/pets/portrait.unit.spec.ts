import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { foldEvents } from '../decider.ts';
import { petDecider } from './decide.ts';
import type { PetEvent, PetMedia, PetRegistered } from './pet.ts';

const now = '2026-06-15T12:00:00.000Z';
const spec = deciderSpec(petDecider);
const registered: PetRegistered = {
  type: 'PetRegistered',
  data: {
    pet_id: 'p1',
    account_id: 'acc',
    profile: {
      name: 'Rex', breed_id: null, species_id: '2', breed_group: null, description: null, microchip_id: null, sub_id: null, country: null,
      date_of_birth: null, age_years: null, age_months: null, age_recorded_at: null, body_condition_score: null,
    },
    registered_at: now,
  },
};
const portrait: PetMedia = {
  media_id: 'portrait-a1', kind: 'portrait', blob_key: 'pet-p1-portrait-a1', content_hash: 'h', mime_type: 'image/png', size_bytes: 10, width: 1024, height: 1024,
  pose: 'side', age_years: null, age_months: null, pet_age_months: null, description: 'studio portrait from photo m1', original_filename: null,
  duration_seconds: null, video_codec: null, container: null, review_status: 'clean', created_at: now, portrait_style_id: 'studio',
};
const added: PetEvent = { type: 'PetPortraitAdded', data: { pet_id: 'p1', account_id: 'acc', media: portrait, added_at: now } };

describe('portraits on the pet stream', () => {
  it('records a portrait once; nothing for a removed pet', () => {
    spec.given([registered]).when({ type: 'AddPortrait', portrait, now }).then([added]);
    spec.given([registered, added]).when({ type: 'AddPortrait', portrait, now }).thenNothing();
    spec.given([registered, { type: 'PetRemoved', data: { pet_id: 'p1', account_id: 'acc', blob_keys: [], removed_at: now } }]).when({ type: 'AddPortrait', portrait, now }).thenNothing();
  });

  it('a portrait is a media record: its blob goes with the pet', () => {
    const state = foldEvents(petDecider, [registered, added]);
    expect(state.status === 'active' && state.media.get('portrait-a1')?.portrait_style_id).toBe('studio');
    const removed = petDecider.decide({ type: 'RemovePet', account_id: 'acc', now }, state);
    expect(removed[0].type === 'PetRemoved' && removed[0].data.blob_keys).toEqual(['pet-p1-portrait-a1']);
  });
});

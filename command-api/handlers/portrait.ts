import { DomainError } from '../../domain/errors.ts';
import type { PortraitResult } from '../../domain/pet-analyses/analysis.ts';
import type { PetMedia } from '../../domain/pets/pet.ts';
import type { CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { ANALYSIS_WAIT_MS, requestAnalysis } from './pet-analyses.ts';
import { loadOwnedPet } from './pets.ts';

/** Poses in the order a portrait prefers them when no photo is named. */
const POSE_PREFERENCE = ['face', 'front', 'side', 'other', 'back', 'top'];

/**
 * Requests a portrait of the caller's pet and waits (bounded) for it: the named photos must all be
 * the pet's usable photos (400 image_not_of_pet for an id that is not one of its media records,
 * 400 validation_failed for a video, a portrait or a photo the review rejected); the first is used.
 * Without names, the photo with the most telling pose (face, front, side, …), newest first.
 * Answers the media record the portrait processor stored.
 */
export const requestPortrait = async (
  store: EventStore,
  petId: string,
  accountId: string,
  body: { style: string; model?: string; image_ids?: string[] },
  context: CommandContext,
  waitMs = ANALYSIS_WAIT_MS,
): Promise<{ media: PetMedia; result: PortraitResult; position: bigint | null }> => {
  const { pet } = await loadOwnedPet(store, petId, accountId);
  const usable = [...pet.media.values()].filter((media) => media.kind === 'photo' && media.review_status !== 'rejected');
  if (usable.length === 0) throw new DomainError('pet_has_no_photos', 'this pet has no usable photos: add some with POST /v1/pets/{petId}/images first');
  let chosen: PetMedia;
  if (body.image_ids) {
    const problems: string[] = [];
    for (const [index, id] of body.image_ids.entries()) {
      const media = pet.media.get(id);
      if (!media) throw new DomainError('image_not_of_pet', `image ${id} is not one of pet ${petId}'s photos`, { details: [`body.image_ids/${index} is not a photo of this pet`] });
      if (media.kind !== 'photo') problems.push(`body.image_ids/${index}: ${id} is a ${media.kind}, not a photo`);
      else if (media.review_status === 'rejected') problems.push(`body.image_ids/${index}: photo ${id} was rejected by the safety review`);
    }
    if (problems.length > 0) throw new DomainError('validation_failed', problems.join('; '), { details: problems });
    chosen = pet.media.get(body.image_ids[0])!;
  } else {
    const rank = (media: PetMedia) => POSE_PREFERENCE.indexOf(media.pose ?? 'other');
    chosen = [...usable].sort((a, b) => rank(a) - rank(b) || b.created_at.localeCompare(a.created_at))[0];
  }
  const { outcome, position } = await requestAnalysis(store, petId, accountId, 'portrait', context, waitMs, {}, {
    style: body.style,
    image_id: chosen.media_id,
    model: body.model ?? null,
  });
  if (outcome.kind !== 'portrait') throw new Error('unexpected analysis kind');
  const after = await loadOwnedPet(store, petId, accountId);
  const media = after.pet.media.get(outcome.result.media_id);
  if (!media) throw new Error(`portrait ${outcome.result.media_id} is not on the pet's stream`);
  return { media, result: outcome.result, position };
};

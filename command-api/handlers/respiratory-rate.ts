import { DomainError } from '../../domain/errors.ts';
import { respiratoryRateDecider, respiratoryRateStream, type RespiratoryRateRequested } from '../../domain/pet-analyses/respiratory-rate.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { loadOwnedPet } from './pets.ts';

/**
 * Requests a respiratory-rate reading of the pet's latest video: a new result stream with the
 * video and the pet's species, which the processor picks up from the bus. No video → 400.
 */
export const requestRespiratoryRate = async (store: EventStore, petId: string, accountId: string, context: CommandContext) => {
  const { pet } = await loadOwnedPet(store, petId, accountId);
  const videos = [...pet.media.values()].filter((media) => media.kind === 'video');
  const latest = videos.at(-1);
  if (!latest) throw new DomainError('pet_has_no_video', 'this pet has no video: upload one with POST /v1/pets/{petId}/videos (the pet asleep, about 30 seconds)');
  const request: RespiratoryRateRequested['data'] = {
    result_id: randomId(12),
    pet_id: pet.petId,
    account_id: pet.accountId,
    sub_id: pet.profile.sub_id,
    species_id: pet.profile.species_id,
    breed_id: pet.profile.breed_id,
    video_id: latest.media_id,
    blob_key: latest.blob_key,
    requested_at: new Date().toISOString(),
  };
  const result = await handleCommand(store, respiratoryRateStream(request.result_id), respiratoryRateDecider, { type: 'RequestRespiratoryRate', request }, context, {
    newStream: true,
  });
  return { request, position: result.position };
};

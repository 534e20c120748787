import { petDecider } from '../../domain/pets/decide.ts';
import { petEvents, petStream } from '../../domain/pets/pet.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { ImageDecodeError } from '../../infrastructure/vision/decode.ts';
import { defineProcessor } from '../processor.ts';
import { processorContext } from '../images/context.ts';

/**
 * Pet photo safety review: pending -> clean | rejected, from the moderation model's verdict on the
 * stored photo (the same model and threshold as the image validation). Each photo of a
 * `PetPhotosAdded` batch is looked at on the pet's stream as it is now: a pet removed since, or a
 * photo already reviewed (a redelivered event, a restart after the append), is skipped before the
 * model runs, and the decider records one verdict per photo. Photos whose bytes are gone are
 * skipped; a model failure throws, so the bus delivers the event again. Bytes the model cannot
 * decode are rejected (retrying would never succeed). Videos are never reviewed.
 */
export const petPhotoReviewProcessor = defineProcessor({
  name: 'pet-photo-review',
  streams: [petEvents],
  requires: ['vision', 'blobs'],
  async handle(event, deps) {
    if (event.type !== 'PetPhotosAdded') return;
    const data = event.data;
    const stream = petStream(data.pet_id);
    for (const added of data.media) {
      if (added.kind !== 'photo') continue;
      const folded = await stateOf(deps.eventStore, stream, petDecider);
      const pet = folded.state;
      if (pet.status !== 'active') return;
      const media = pet.media.get(added.media_id);
      if (!media || media.review_status !== 'pending') continue;
      const blob = await deps.blobs!.get(media.blob_key);
      if (!blob) {
        deps.logger.warn({ pet_id: data.pet_id, media_id: media.media_id }, 'pet photo bytes are gone (deleted?): not reviewed');
        continue;
      }
      let verdict: { rejected: boolean; reasons: string[] };
      try {
        const moderated = await deps.vision!.moderate(blob.data);
        verdict = { rejected: moderated.unsafe, reasons: moderated.unsafe ? moderated.reasons : [] };
      } catch (error) {
        if (!(error instanceof ImageDecodeError)) throw error;
        verdict = { rejected: true, reasons: ['the photo could not be decoded'] };
      }
      await handleCommand(
        deps.eventStore,
        stream,
        petDecider,
        {
          type: 'ReviewMedia',
          media_id: media.media_id,
          review_status: verdict.rejected ? 'rejected' : 'clean',
          reasons: verdict.reasons,
          now: new Date().toISOString(),
        },
        processorContext('pet-photo-review', event),
        { known: folded },
      );
    }
  },
});

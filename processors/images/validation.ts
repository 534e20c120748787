import { imageDecider } from '../../domain/images/decide.ts';
import { imageEvents, imageStream } from '../../domain/images/image.ts';
import { handleCommand, stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { defineProcessor } from '../processor.ts';
import { processorContext } from './context.ts';

/**
 * Validation: to_be_reviewed -> clean | unsafe, from the moderation model's verdict on the image
 * (its `med` size, 640 px). Idempotent: an image already past to_be_reviewed (a redelivered
 * event, a restart after the append) is skipped before the model runs, and the decider records
 * one verdict only.
 */
export const imageValidationProcessor = defineProcessor({
  name: 'image-validation',
  streams: [imageEvents],
  requires: ['vision', 'blobs'],
  async handle(event, deps) {
    if (event.type !== 'ImageUploaded') return;
    const data = event.data;
    const folded = await stateOf(deps.eventStore, imageStream(data.image_id), imageDecider);
    if (!folded.state.exists || folded.state.deleted || folded.state.status !== 'to_be_reviewed') return;
    const blob = await deps.blobs!.get(data.blob_keys.med);
    if (!blob) {
      deps.logger.warn({ image_id: data.image_id }, 'image bytes are gone (deleted?): not validated');
      return;
    }
    const verdict = await deps.vision!.moderate(blob.data);
    const model = deps.vision!.info().find((info) => info.task === 'safety');
    await handleCommand(
      deps.eventStore,
      imageStream(data.image_id),
      imageDecider,
      {
        type: 'RecordValidation',
        data: {
          image_id: data.image_id,
          account_id: data.account_id,
          verdict: verdict.unsafe ? 'unsafe' : 'clean',
          unsafe_reasons: verdict.unsafe ? verdict.reasons : [],
          moderation_labels: verdict.labels,
          scores: verdict.scores,
          threshold: verdict.threshold,
          model: model ? `${model.name} ${model.version}` : 'unknown',
          validated_at: new Date().toISOString(),
        },
      },
      processorContext('image-validation', event),
      { known: folded },
    );
  },
});

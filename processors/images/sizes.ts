import { imageDecider } from '../../domain/images/decide.ts';
import { imageEvents, DEFERRED_SIZES, imageStream } from '../../domain/images/image.ts';
import { stateOf } from '../../infrastructure/event-store/command-handler.ts';
import { storeDerivedSizes } from '../../infrastructure/images/blobs.ts';
import { deriveSmallSizes } from '../../infrastructure/images/process-upload.ts';
import { defineProcessor, type ProcessorDeps } from '../processor.ts';

const isGone = async (deps: ProcessorDeps, imageId: string): Promise<boolean> => {
  const { state } = await stateOf(deps.eventStore, imageStream(imageId), imageDecider);
  return !state.exists || state.deleted;
};

/**
 * The small sizes (`small` 320 px, `thumb` 150 px) of every image, derived from its `med` size
 * after the upload has been answered, so an upload does the image work of one size instead of
 * three (`full` and `med` are made before the answer; until this processor has run, the image
 * file route answers `small` and `thumb` with `med`, uncached).
 *
 * Idempotent: the same `med` gives the same bytes, so an event seen twice only writes them again.
 * A deleted image gets no new files: one whose `med` is already gone is skipped, and should the
 * image be deleted while its sizes are written (the cleanup processor may already have run), the
 * files just written are removed again.
 */
export const imageSizesProcessor = defineProcessor({
  name: 'image-sizes',
  streams: [imageEvents],
  requires: ['blobs'],
  async handle(event, deps) {
    if (event.type !== 'ImageUploaded') return;
    const blobs = deps.blobs!;
    const data = event.data;
    const med = await blobs.get(data.blob_keys.med);
    if (!med) return; // deleted (its files went with it) before its sizes were made
    await storeDerivedSizes(blobs, data.blob_keys, await deriveSmallSizes(med.data, data.format), data.mime_type);
    if (await isGone(deps, data.image_id)) {
      await Promise.all(DEFERRED_SIZES.map((size) => blobs.delete(data.blob_keys[size])));
      return;
    }
    deps.logger.debug({ image_id: data.image_id }, 'small sizes made');
  },
});

import { imageEvents } from '../domain/images/image.ts';
import { defineProcessor } from './processor.ts';

/**
 * When an image is deleted its stored bytes go too: the original and every derived size, named
 * by the event. Deleting a blob that is already gone is fine, so an event seen twice (at-least-once
 * delivery) or a crash half-way only repeats the work.
 */
export const imageBlobCleanup = defineProcessor({
  name: 'image-blob-cleanup',
  streams: [imageEvents],
  requires: ['blobs'],
  async handle(event, deps) {
    if (event.type !== 'ImageDeleted') return;
    if (!deps.blobs) throw new Error('image-blob-cleanup needs the blob store');
    const data = event.data;
    for (const key of new Set(Object.values(data.blob_keys))) await deps.blobs.delete(key);
    deps.logger.debug({ image_id: data.image_id }, 'image files deleted');
  },
});

import sharp from 'sharp';
import { imageDecider } from '../domain/images/decide.ts';
import { imageStream, type ImageUploaded } from '../domain/images/image.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';
import { handleCommand, type CommandContext } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';
import { randomId } from '../infrastructure/ids.ts';
import { storeImageBlobs } from '../infrastructure/images/blobs.ts';
import { processUpload } from '../infrastructure/images/process-upload.ts';

/**
 * An image as an upload leaves it for the processors: a 1200×900 JPEG's full and med files in
 * `blobs`, its ImageUploaded in `store` (account `acc-1`), and that event as the bus hands it over.
 */
export const storedUpload = async (store: EventStore, blobs: BlobStore, context: CommandContext): Promise<{ event: RecordedEvent; data: ImageUploaded['data'] }> => {
  const jpeg = await sharp({ create: { width: 1200, height: 900, channels: 3, background: { r: 90, g: 60, b: 30 } } }).jpeg().toBuffer();
  const image = await processUpload(jpeg);
  const imageId = randomId(9);
  const blobKeys = await storeImageBlobs(blobs, imageId, image);
  const data: ImageUploaded['data'] = {
    image_id: imageId,
    account_id: 'acc-1',
    sub_id: null,
    original_filename: null,
    mime_type: image.mime,
    format: image.format,
    width: image.width,
    height: image.height,
    bytes: image.sizes.full.length,
    age_months: null,
    breed_ids: [],
    url_token: randomId(24),
    blob_keys: blobKeys,
    auto_crop: false,
    parent_image_id: null,
    crop_box: null,
    created_at: new Date().toISOString(),
  };
  await handleCommand(store, imageStream(imageId), imageDecider, { type: 'UploadImage', data }, context, { newStream: true });
  const [event] = await store.readStream(imageStream(imageId));
  return { event, data };
};

import { blobKeysFor, IMAGE_SIZES } from '../../domain/images/image.ts';
import type { BlobStore } from '../blobs/port.ts';

/** Stores the original and every derived size; the keys are the image's own. */
export const storeImageBlobs = async (
  blobs: BlobStore,
  imageId: string,
  image: { mime: string; original: Buffer; sizes: Record<(typeof IMAGE_SIZES)[number], Buffer> },
): Promise<void> => {
  const keys = blobKeysFor(imageId);
  await Promise.all([
    blobs.put(keys.original, image.original, image.mime),
    ...IMAGE_SIZES.map((size) => blobs.put(keys[size], image.sizes[size], image.mime)),
  ]);
};

export const deleteImageBlobs = async (blobs: BlobStore, imageId: string): Promise<void> => {
  const keys = blobKeysFor(imageId);
  await Promise.allSettled(Object.values(keys).map((key) => blobs.delete(key)));
};


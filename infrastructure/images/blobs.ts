import { blobKeysFor, UPLOAD_SIZES, type DeferredSize, type ImageBlobKeys, type UploadSize } from '../../domain/images/image.ts';
import type { BlobStore } from '../blobs/port.ts';

/**
 * Waits for every write, then fails with the first failure: a caller that removes the blobs after
 * a failure must not do so while another write is still under way (it would land afterwards and
 * stay, named by nothing).
 */
const allWritten = async (writes: Promise<unknown>[]): Promise<void> => {
  const failed = (await Promise.allSettled(writes)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
};

/**
 * Stores the original and the sizes an upload answers with (`full`, `med`) and answers the keys
 * its event names: the image's own, except that a `full` which is the original byte for byte (a
 * plain upright upload, see processUpload) is not written twice — its key is the original's.
 */
export const storeImageBlobs = async (
  blobs: BlobStore,
  imageId: string,
  image: { mime: string; original: Buffer; sizes: Record<UploadSize, Buffer> },
): Promise<ImageBlobKeys> => {
  const own = blobKeysFor(imageId);
  const keys = image.sizes.full === image.original ? { ...own, full: own.original } : own;
  const writes = new Map<string, Buffer>([[keys.original, image.original], ...UPLOAD_SIZES.map((size) => [keys[size], image.sizes[size]] as const)]);
  await allWritten([...writes].map(([key, data]) => blobs.put(key, data, image.mime)));
  return keys;
};

/** Stores the sizes derived after the upload (`small`, `thumb`) under the keys its event named. */
export const storeDerivedSizes = async (blobs: BlobStore, keys: ImageBlobKeys, sizes: Record<DeferredSize, Buffer>, mime: string): Promise<void> => {
  await allWritten((Object.keys(sizes) as DeferredSize[]).map((size) => blobs.put(keys[size], sizes[size], mime)));
};

export const deleteImageBlobs = async (blobs: BlobStore, imageId: string): Promise<void> => {
  const keys = blobKeysFor(imageId);
  await Promise.allSettled(Object.values(keys).map((key) => blobs.delete(key)));
};

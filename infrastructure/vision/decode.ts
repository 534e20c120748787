import sharp from 'sharp';
import type { BoundingBox } from './port.ts';

// Every image decoded here is new: libvips' operation cache (50 MB by default, per process) would
// only hold memory.
sharp.cache(false);

/** Bytes that sharp cannot decode as an image (truncated, not an image, over the pixel limit). */
export class ImageDecodeError extends Error {
  override name = 'ImageDecodeError';
}

/** Larger images are refused rather than decoded (the upload path enforces its own, lower limit). */
export const MAX_INPUT_PIXELS = 100_000_000;

/**
 * Decodes an image (first frame of an animation, EXIF orientation applied, transparency flattened
 * on white, sRGB) and resizes it to `width` × `height` interleaved RGB bytes. `fit: 'fill'`
 * stretches the whole image; `'cover'` scales the short side and crops the centre.
 */
export async function decodeRgb(image: Uint8Array, width: number, height: number, fit: 'fill' | 'cover'): Promise<Buffer> {
  try {
    return await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .resize(width, height, { fit, kernel: 'lanczos3' })
      .removeAlpha()
      .raw()
      .toBuffer();
  } catch (err) {
    throw new ImageDecodeError(`image could not be decoded: ${(err as Error).message}`);
  }
}

/** open_nsfw's preprocessing: stretch to 256², centre-crop 224², JPEG round trip (as the reference implementation). */
export async function decodeForOpenNsfw(image: Uint8Array): Promise<Buffer> {
  const rgb = await decodeRgb(image, 256, 256, 'fill');
  try {
    const jpeg = await sharp(rgb, { raw: { width: 256, height: 256, channels: 3 } })
      .extract({ left: 16, top: 16, width: 224, height: 224 })
      .jpeg({ quality: 75 })
      .toBuffer();
    return await sharp(jpeg).removeAlpha().raw().toBuffer();
  } catch (err) {
    throw new ImageDecodeError(`image could not be prepared: ${(err as Error).message}`);
  }
}

/** A rectangle in whole pixels of the decoded image. */
export type PixelRegion = { left: number; top: number; width: number; height: number };

/**
 * The pixels the classifier looks at for a box (fractions of the image): the box widened by
 * `margin` of its width and height on every side, then made as square as the image allows around
 * the box's centre (a classifier trained on square centre crops reads a stretched crop worse),
 * kept inside the image.
 */
export function cropRegion(imageWidth: number, imageHeight: number, box: BoundingBox, margin: number): PixelRegion {
  const cx = (box.left + box.width / 2) * imageWidth;
  const cy = (box.top + box.height / 2) * imageHeight;
  const w = box.width * (1 + 2 * margin) * imageWidth;
  const h = box.height * (1 + 2 * margin) * imageHeight;
  const side = Math.max(w, h);
  const width = Math.max(1, Math.min(imageWidth, Math.round(side)));
  const height = Math.max(1, Math.min(imageHeight, Math.round(side)));
  const left = Math.min(imageWidth - width, Math.max(0, Math.round(cx - width / 2)));
  const top = Math.min(imageHeight - height, Math.max(0, Math.round(cy - height / 2)));
  return { left, top, width, height };
}

/**
 * Decodes an image once (as decodeRgb) and cuts `size` × `size` RGB inputs from it: for a box, its
 * cropRegion stretched to the square; for null, the whole image cover-resized (as classify does).
 */
export async function decodeRegions(image: Uint8Array, regions: readonly (BoundingBox | null)[], size: number, margin: number): Promise<Buffer[]> {
  try {
    const { data, info } = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
    const out: Buffer[] = [];
    for (const box of regions) {
      const decoded = sharp(data, raw);
      const cut = box
        ? decoded.extract(cropRegion(info.width, info.height, box, margin)).resize(size, size, { fit: 'fill', kernel: 'lanczos3' })
        : decoded.resize(size, size, { fit: 'cover', kernel: 'lanczos3' });
      out.push(await cut.removeAlpha().raw().toBuffer());
    }
    return out;
  } catch (err) {
    throw new ImageDecodeError(`image could not be decoded: ${(err as Error).message}`);
  }
}

import sharp from 'sharp';

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

/** Where the image sits inside a letterboxed square, in pixels of the square. */
export type Frame = { left: number; top: number; width: number; height: number };

/**
 * The detector's input: the image scaled without distortion into a `size` square, inside a black
 * margin of `margin` × size on every side. CenterNet was trained on COCO scenes where animals rarely
 * fill the frame: on close-ups (the cat photo) a stretched input scored 'dog' first, the framed one
 * 'cat' 0.62; two cats side by side were two 'person's when stretched and two cats when framed.
 */
export async function decodeLetterboxed(image: Uint8Array, size: number, margin: number): Promise<{ rgb: Buffer; frame: Frame }> {
  try {
    const oriented = sharp(image, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' }).rotate();
    const meta = await oriented.metadata();
    const [w0, h0] = [meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0];
    const [w, h] = (meta.orientation ?? 1) >= 5 ? [h0, w0] : [w0, h0];
    if (!w || !h) throw new Error('no image dimensions');
    const inner = Math.round(size * (1 - 2 * margin));
    const scale = inner / Math.max(w, h);
    const width = Math.max(1, Math.round(w * scale));
    const height = Math.max(1, Math.round(h * scale));
    const left = Math.floor((size - width) / 2);
    const top = Math.floor((size - height) / 2);
    const rgb = await oriented
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
      .extend({ left, top, right: size - width - left, bottom: size - height - top, background: '#000000' })
      .removeAlpha()
      .raw()
      .toBuffer();
    return { rgb, frame: { left, top, width, height } };
  } catch (err) {
    throw new ImageDecodeError(`image could not be decoded: ${(err as Error).message}`);
  }
}

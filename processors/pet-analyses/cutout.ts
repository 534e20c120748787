import sharp from 'sharp';
import { PORTRAIT_SIZE } from '../../domain/pet-analyses/portrait.ts';

/**
 * Cuts the animal out of a photo: the detector's box narrows the photo to the animal, and inside
 * the box a foreground mask is computed from the pixels — the background is estimated from the
 * box's border (the colours that make up at least 2 % of the border pixels), and every pixel close
 * to one of those colours (RGB distance < 48) that is connected to the border is background. What
 * the flood from the border does not reach is the animal, so an animal that contains a background
 * colour inside it keeps it. When the box is one colour (nothing stands out from its border) the
 * mask falls back to an ellipse inscribed in the box, and says so.
 */
export type Box = { left: number; top: number; width: number; height: number };
export type Cutout = { image: Buffer; width: number; height: number; box: Box; foreground_share: number; method: 'border_background' | 'ellipse' };

const BIN = 32; // quantisation of the border colours: 8 levels per channel
const CLOSE = 48;
const MIN_BORDER_SHARE = 0.02;
const MIN_FOREGROUND_SHARE = 0.03;

/** Background mask (1 = background) of an RGB raw image, flooded from its border. */
export const backgroundMask = (data: Buffer, width: number, height: number, channels: number): Uint8Array => {
  const border: number[] = [];
  for (let x = 0; x < width; x++) border.push(x, (height - 1) * width + x);
  for (let y = 1; y < height - 1; y++) border.push(y * width, y * width + width - 1);
  const bins = new Map<number, { n: number; r: number; g: number; b: number }>();
  for (const index of border) {
    const o = index * channels;
    const key = ((data[o] / BIN) | 0) * 64 + ((data[o + 1] / BIN) | 0) * 8 + ((data[o + 2] / BIN) | 0);
    const bin = bins.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
    bin.n++;
    bin.r += data[o];
    bin.g += data[o + 1];
    bin.b += data[o + 2];
    bins.set(key, bin);
  }
  const colours = [...bins.values()].filter((bin) => bin.n >= border.length * MIN_BORDER_SHARE).map((bin) => [bin.r / bin.n, bin.g / bin.n, bin.b / bin.n]);
  const isBackgroundLike = (index: number) => {
    const o = index * channels;
    return colours.some(([r, g, b]) => (data[o] - r) ** 2 + (data[o + 1] - g) ** 2 + (data[o + 2] - b) ** 2 < CLOSE * CLOSE);
  };
  const mask = new Uint8Array(width * height);
  const queue = new Int32Array(width * height);
  let head = 0;
  let tail = 0;
  for (const index of border) {
    if (!mask[index] && isBackgroundLike(index)) {
      mask[index] = 1;
      queue[tail++] = index;
    }
  }
  while (head < tail) {
    const index = queue[head++];
    const x = index % width;
    const neighbours = [x > 0 ? index - 1 : -1, x < width - 1 ? index + 1 : -1, index - width, index + width];
    for (const next of neighbours) {
      if (next < 0 || next >= width * height || mask[next]) continue;
      if (!isBackgroundLike(next)) continue;
      mask[next] = 1;
      queue[tail++] = next;
    }
  }
  return mask;
};

/** Expands a fractional detection box by `margin` of its size on each side, in pixels, within the image. */
export const pixelBox = (box: Box, imageWidth: number, imageHeight: number, margin = 0.08): Box => {
  const left = Math.max(0, Math.floor((box.left - box.width * margin) * imageWidth));
  const top = Math.max(0, Math.floor((box.top - box.height * margin) * imageHeight));
  const right = Math.min(imageWidth, Math.ceil((box.left + box.width * (1 + margin)) * imageWidth));
  const bottom = Math.min(imageHeight, Math.ceil((box.top + box.height * (1 + margin)) * imageHeight));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
};

/**
 * Longest side of a cut-out, in pixels: the portrait shows it at most 819 × 799 (portraitPlacement),
 * so more would only cost. Cut at full size from a 49-megapixel photo, one took 4.8 s and grew the
 * process by 380 MiB (its pixels raw, the mask, the alpha, a 165 MB PNG).
 */
export const MAX_CUTOUT_SIDE = PORTRAIT_SIZE.width;

/**
 * The animal in `box` (fractions of the photo) as an RGBA PNG whose alpha is the foreground mask,
 * scaled down to at most MAX_CUTOUT_SIDE on its longest side (`box` stays in the photo's pixels).
 */
export const cutOut = async (photo: Buffer, box: Box): Promise<Cutout> => {
  const oriented = sharp(photo, { limitInputPixels: 50_000_000 }).rotate();
  const meta = await sharp(photo).metadata();
  // EXIF orientations 5–8 turn the picture a quarter: width and height swap once rotated.
  const turned = (meta.orientation ?? 1) >= 5;
  const fullWidth = (turned ? meta.height : meta.width) ?? 1;
  const fullHeight = (turned ? meta.width : meta.height) ?? 1;
  const region = pixelBox(box, fullWidth, fullHeight);
  const { data, info } = await oriented
    .clone()
    .extract(region)
    .resize({ width: MAX_CUTOUT_SIDE, height: MAX_CUTOUT_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const background = backgroundMask(data, info.width, info.height, info.channels);
  let foreground = 0;
  for (const value of background) if (!value) foreground++;
  const share = foreground / background.length;
  const alpha = Buffer.alloc(info.width * info.height);
  let method: Cutout['method'] = 'border_background';
  if (share < MIN_FOREGROUND_SHARE) {
    method = 'ellipse';
    const cx = info.width / 2;
    const cy = info.height / 2;
    for (let y = 0; y < info.height; y++)
      for (let x = 0; x < info.width; x++) alpha[y * info.width + x] = ((x + 0.5 - cx) / cx) ** 2 + ((y + 0.5 - cy) / cy) ** 2 <= 1 ? 255 : 0;
  } else {
    for (let index = 0; index < background.length; index++) alpha[index] = background[index] ? 0 : 255;
  }
  const image = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .joinChannel(alpha, { raw: { width: info.width, height: info.height, channels: 1 } })
    .png()
    .toBuffer();
  return { image, width: info.width, height: info.height, box: region, foreground_share: method === 'ellipse' ? Math.PI / 4 : share, method };
};

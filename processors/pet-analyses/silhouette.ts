import sharp from 'sharp';
import type { Mask } from '../../domain/pet-analyses/silhouette.ts';
import type { BoundingBox, Detection, VisionModels } from '../../infrastructure/vision/port.ts';

/**
 * Cuts the animal's silhouette out of a photo: the detector's box (with a margin of 8 % so the
 * crop's border is background), scaled to at most 256 px on its long side, then a foreground mask
 * from the raw pixels — the background colour is the median of the crop's border, every pixel's
 * colour distance to it is thresholded by Otsu's method, the largest connected region is kept and
 * its holes filled (markings inside the coat are still animal).
 *
 * Quality (0..1) says how far the mask can be trusted: Otsu's separability (between-class over
 * total variance: 1 = two clean colours), lowered when the silhouette touches the crop's border
 * (the animal is cut off, or the background was not told apart) and when it fills too little or
 * too much of the box.
 */
export type Silhouette = { mask: Mask; quality: number; notes: string[] };

const MAX_SIDE = 256;
const MARGIN = 0.08;

/** The animal the analysis is about: the most confident cat/dog/horse box, of the pet's species when it is known. */
export const animalDetection = (detections: Detection[], speciesId: string | null): Detection | null => {
  const label = speciesId === '1' ? 'cat' : speciesId === '2' ? 'dog' : speciesId === '3' ? 'horse' : null;
  const animals = detections.filter((d) => d.label === 'cat' || d.label === 'dog' || d.label === 'horse').sort((a, b) => b.confidence - a.confidence);
  return animals.find((d) => d.label === label) ?? animals[0] ?? null;
};

const otsu = (histogram: number[], total: number): { threshold: number; separability: number } => {
  let sum = 0;
  for (let i = 0; i < histogram.length; i++) sum += i * histogram[i];
  const mean = sum / total;
  let variance = 0;
  for (let i = 0; i < histogram.length; i++) variance += histogram[i] * (i - mean) ** 2;
  variance /= total;
  let best = { threshold: 0, between: 0 };
  let weightB = 0;
  let sumB = 0;
  for (let t = 0; t < histogram.length; t++) {
    weightB += histogram[t];
    if (weightB === 0) continue;
    const weightF = total - weightB;
    if (weightF === 0) break;
    sumB += t * histogram[t];
    const meanB = sumB / weightB;
    const meanF = (sum - sumB) / weightF;
    const between = (weightB / total) * (weightF / total) * (meanB - meanF) ** 2;
    if (between > best.between) best = { threshold: t, between };
  }
  return { threshold: best.threshold, separability: variance === 0 ? 0 : best.between / variance };
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

/** Keeps the largest 4-connected region of `on` pixels; returns its size. */
const keepLargestRegion = (mask: Uint8Array, width: number, height: number): number => {
  const label = new Int32Array(mask.length);
  const queue = new Int32Array(mask.length);
  let best = { id: 0, size: 0 };
  let next = 0;
  for (let start = 0; start < mask.length; start++) {
    if (!mask[start] || label[start]) continue;
    next++;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    label[start] = next;
    while (head < tail) {
      const index = queue[head++];
      const x = index % width;
      const neighbours = [x > 0 ? index - 1 : -1, x < width - 1 ? index + 1 : -1, index - width, index + width];
      for (const n of neighbours) {
        if (n < 0 || n >= mask.length || !mask[n] || label[n]) continue;
        label[n] = next;
        queue[tail++] = n;
      }
    }
    if (tail > best.size) best = { id: next, size: tail };
  }
  for (let i = 0; i < mask.length; i++) mask[i] = label[i] === best.id ? 1 : 0;
  return best.size;
};

/** Background pixels not reachable from the border are holes in the animal: fill them. */
const fillHoles = (mask: Uint8Array, width: number, height: number): void => {
  const outside = new Uint8Array(mask.length);
  const queue: number[] = [];
  const push = (index: number) => {
    if (mask[index] || outside[index]) return;
    outside[index] = 1;
    queue.push(index);
  };
  for (let x = 0; x < width; x++) {
    push(x);
    push((height - 1) * width + x);
  }
  for (let y = 0; y < height; y++) {
    push(y * width);
    push(y * width + width - 1);
  }
  while (queue.length > 0) {
    const index = queue.pop()!;
    const x = index % width;
    if (x > 0) push(index - 1);
    if (x < width - 1) push(index + 1);
    if (index >= width) push(index - width);
    if (index + width < mask.length) push(index + width);
  }
  for (let i = 0; i < mask.length; i++) if (!outside[i]) mask[i] = 1;
};

export const extractSilhouette = async (image: Buffer, box: BoundingBox): Promise<Silhouette> => {
  // The crop is cut and scaled in the one pipeline that decodes the photo, so the full-size picture
  // is never held as raw pixels here (150 MB for a 50-megapixel photo); the size once turned upright
  // comes from the header (EXIF orientations 5–8 swap width and height).
  const meta = await sharp(image, { animated: false }).metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const W = (turned ? meta.height : meta.width) ?? 1;
  const H = (turned ? meta.width : meta.height) ?? 1;
  const left = Math.max(0, Math.floor((box.left - box.width * MARGIN) * W));
  const top = Math.max(0, Math.floor((box.top - box.height * MARGIN) * H));
  const right = Math.min(W, Math.ceil((box.left + box.width * (1 + MARGIN)) * W));
  const bottom = Math.min(H, Math.ceil((box.top + box.height * (1 + MARGIN)) * H));
  const cropWidth = Math.max(1, right - left);
  const cropHeight = Math.max(1, bottom - top);
  const scale = Math.min(1, MAX_SIDE / Math.max(cropWidth, cropHeight));
  const { data, info } = await sharp(image, { animated: false, limitInputPixels: 50_000_000 })
    .rotate()
    .removeAlpha()
    .extract({ left, top, width: cropWidth, height: cropHeight })
    .resize(Math.max(1, Math.round(cropWidth * scale)), Math.max(1, Math.round(cropHeight * scale)), { kernel: 'linear' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const pixel = (x: number, y: number) => (y * width + x) * channels;
  const border: number[] = [];
  for (let x = 0; x < width; x++) border.push(pixel(x, 0), pixel(x, height - 1));
  for (let y = 1; y < height - 1; y++) border.push(pixel(0, y), pixel(width - 1, y));
  const background = [0, 1, 2].map((c) => median(border.map((offset) => data[offset + c])));
  const distances = new Uint8Array(width * height);
  const histogram = new Array<number>(256).fill(0);
  for (let i = 0; i < width * height; i++) {
    const offset = i * channels;
    const d = Math.sqrt((data[offset] - background[0]) ** 2 + (data[offset + 1] - background[1]) ** 2 + (data[offset + 2] - background[2]) ** 2);
    const level = Math.min(255, Math.round((d / 441.7) * 255));
    distances[i] = level;
    histogram[level]++;
  }
  const { threshold, separability } = otsu(histogram, width * height);
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = distances[i] > threshold ? 1 : 0;
  const notes: string[] = [];
  const size = keepLargestRegion(mask, width, height);
  fillHoles(mask, width, height);
  let touching = 0;
  for (const offset of border) touching += mask[offset / channels];
  const touchShare = touching / border.length;
  const fill = size / (width * height);
  let quality = separability;
  if (touchShare > 0.05) {
    quality *= Math.max(0, 1 - 3 * touchShare);
    notes.push(`the silhouette touches ${Math.round(touchShare * 100)} % of the crop's border`);
  }
  if (fill < 0.15 || fill > 0.92) {
    // A box is drawn around the animal: a sliver (or a box full to the edges) means the background
    // was not what the border showed — e.g. a box inside the animal, whose border is coat.
    quality *= 0.25;
    notes.push(`the silhouette fills ${Math.round(fill * 100)} % of the box`);
  }
  if (separability < 0.6) notes.push(`animal and background are hard to tell apart (separability ${separability.toFixed(2)})`);
  return { mask: { width, height, data: mask }, quality: Math.round(quality * 100) / 100, notes };
};

/** Detects the animal and cuts out its silhouette; null (with the reason) when there is none to measure. */
export const silhouetteOf = async (vision: VisionModels, image: Buffer, speciesId: string | null): Promise<{ silhouette: Silhouette } | { reason: string }> => {
  const detection = animalDetection(await vision.detect(image), speciesId);
  if (!detection) return { reason: 'the detector found no cat, dog or horse' };
  return { silhouette: await extractSilhouette(image, detection.box) };
};

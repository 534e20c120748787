
/**
 * What decoding an upload costs in resident memory, told from its header before a pixel is decoded.
 *
 * libvips streams most work through small tiles: a baseline JPEG (shrunk on load), a PNG that is
 * not interlaced. But some images are decoded whole, whatever is made of them — a GIF frame, an
 * interlaced PNG, a progressive JPEG (its coefficients first) — and turning an image a quarter
 * (EXIF orientation 5–8) or re-encoding a GIF (quantising its colours) holds the whole picture,
 * several times over. Their files can be tiny: a 33 KB GIF of 7000 × 7000 took a process up by
 * 679 MiB. So the cost is counted per pixel, by the work the upload needs (measured 2026-11-28,
 * sharp 0.35, resident peak of one pipeline alone, 16 and 49 megapixels):
 *
 *   sized down (`med`), streamed                         ≤ 1.2 bytes/pixel   (non-interlaced PNG)
 *   sized down, decoded whole                            4.7–5.9             (interlaced PNG, progressive JPEG, GIF)
 *   re-encoded at full size, streamed                    0.6                 (non-interlaced PNG)
 *   re-encoded at full size, decoded whole or turned     9–14                (a quarter turn 9, progressive JPEG 9–12, GIF 14)
 *
 * The estimate takes the top of each range with a little room.
 */
export const BYTES_PER_PIXEL = { streamed: 1.5, decodedWhole: 6, reencodedWhole: 14 } as const;

/** What the header says (sharp's Metadata has these fields). */
export type HeaderFacts = { format?: string; isProgressive?: boolean; orientation?: number; width?: number; height?: number };

/** Formats (and variants) that libvips decodes whole, not tile by tile. */
export const decodedWhole = (meta: HeaderFacts): boolean =>
  meta.format === 'gif' || ((meta.format === 'png' || meta.format === 'jpeg') && meta.isProgressive === true);

/**
 * Largest image accepted of those libvips decodes whole, in pixels — 4096 × 4096. Such a file can
 * be a few kilobytes and still take hundreds of megabytes to decode: at 50 megapixels a GIF
 * re-encoded took 679 MiB.
 */
export const MAX_WHOLE_DECODE_PIXELS = 4096 * 4096;

/** An image decoded whole that is larger than MAX_WHOLE_DECODE_PIXELS: refused from its header on both photo routes. */
export const tooLargeToDecodeWhole = (meta: HeaderFacts): boolean =>
  decodedWhole(meta) && (meta.width ?? 0) * (meta.height ?? 0) > MAX_WHOLE_DECODE_PIXELS;

/** EXIF orientations 5–8 turn the image a quarter: libvips holds all of it to do so. */
export const turnsAQuarter = (meta: HeaderFacts): boolean => (meta.orientation ?? 1) >= 5;

/**
 * The resident memory an upload's decoding needs at its peak, in bytes: its sized-down copy and,
 * when `full` is re-encoded (metadata to strip, a turn, a resize, a GIF), the full-size one — made
 * one after the other, so the larger of the two.
 */
export const decodeCost = (
  meta: HeaderFacts,
  { reencodesFull }: { reencodesFull: boolean },
): number => {
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  const whole = decodedWhole(meta);
  const sized = pixels * (whole ? BYTES_PER_PIXEL.decodedWhole : BYTES_PER_PIXEL.streamed);
  if (!reencodesFull) return Math.ceil(sized);
  // WebP is decoded whole at full size (libwebp scales only when it shrinks on load).
  const wholeAtFullSize = whole || turnsAQuarter(meta) || meta.format === 'webp';
  const full = pixels * (wholeAtFullSize ? BYTES_PER_PIXEL.reencodedWhole : BYTES_PER_PIXEL.streamed);
  return Math.ceil(Math.max(sized, full));
};

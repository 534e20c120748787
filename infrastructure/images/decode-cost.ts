
/**
 * What decoding an upload costs in resident memory, told from its header before a pixel is decoded.
 *
 * libvips streams most work through small tiles: a baseline JPEG (shrunk on load), a PNG that is
 * not interlaced, and a JPEG or PNG re-encoded at full size (the JPEG encoder without optimised
 * Huffman tables: optimising them buffers every coefficient of the picture, ≈ 6.6 bytes a pixel).
 * But some images are decoded whole, whatever is made of them — a GIF frame, an interlaced PNG, a
 * progressive JPEG (its coefficients first) — and turning or flipping an image upright (EXIF
 * orientation 3–8: all but the mirror of 2) holds the whole picture; libwebp encodes a whole
 * picture and re-encoding a GIF quantises one. Their files can be tiny: a 33 KB GIF of 7000 × 7000
 * took a process up by 679 MiB. So the cost is counted per pixel, by the work the upload needs
 * (measured 2026-11-28, sharp 0.35, resident peak of one pipeline alone, 16 and 49 megapixels):
 *
 *   sized down (`med`), streamed                                  ≤ 1.2 bytes/pixel  (non-interlaced PNG)
 *   sized down, decoded whole                                      4.7–5.9            (interlaced PNG, progressive JPEG, GIF)
 *   JPEG or PNG re-encoded at full size, streamed                  0.7–1.0            (baseline JPEG, upright)
 *   JPEG or PNG re-encoded at full size, decoded whole or turned   3.5–6.5            (turned 3.5, progressive 4.0, both 6.2, PNG 6.2–6.5)
 *   WebP or GIF re-encoded at full size                            11–15.3            (WebP turned 11.3, upright 15.3; GIF 14)
 *
 * The estimate takes the top of each range with a little room.
 */
export const BYTES_PER_PIXEL = { streamed: 1.5, decodedWhole: 6, reencodedFromWhole: 7, reencodedWhole: 16 } as const;

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

/**
 * libwebp encodes a whole picture at once and the GIF encoder quantises one (≈ 16 bytes a pixel of
 * what is written): re-encoded, a WebP or GIF may come to at most MAX_WHOLE_DECODE_PIXELS. An
 * upright still WebP is never re-encoded for its metadata alone (clean-photo.ts strips it).
 */
export const tooLargeToReencodeWhole = (format: string | undefined, pixelsWritten: number): boolean =>
  (format === 'webp' || format === 'gif') && pixelsWritten > MAX_WHOLE_DECODE_PIXELS;

/**
 * EXIF orientations 3–8 turn or flip the image upside down or a quarter: libvips holds all of it
 * to do so (2, a mirror, is done row by row).
 */
export const holdsWholeToTurn = (meta: HeaderFacts): boolean => (meta.orientation ?? 1) >= 3;

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
  const perPixel =
    meta.format === 'webp' || meta.format === 'gif'
      ? BYTES_PER_PIXEL.reencodedWhole
      : whole || holdsWholeToTurn(meta)
        ? BYTES_PER_PIXEL.reencodedFromWhole
        : BYTES_PER_PIXEL.streamed;
  return Math.ceil(Math.max(sized, pixels * perPixel));
};

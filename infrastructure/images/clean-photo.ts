/**
 * The bytes of a photo as they may be stored and served: nothing in them but the picture.
 * - JPEG, PNG and upright WebP are stripped losslessly: every segment that can carry text (JPEG
 *   COM and APPn — EXIF with its GPS, XMP, ICC, IPTC, vendors' — PNG text, EXIF, ICC and private
 *   chunks, WebP EXIF, XMP, ICCP and unknown chunks) is dropped and the image data is kept byte for
 *   byte (no generation loss, no decode). A JPEG's EXIF orientation survives as a minimal EXIF
 *   segment holding that one number; a WebP turned by its EXIF is re-encoded upright.
 * - GIF (whose extensions are not walked) is re-encoded from its pixels by sharp.
 * - Whatever remains is searched for HTML tags (markup.ts); image data shaped to hold one is
 *   re-encoded from its pixels, and bytes that still hold one are refused.
 * `planClean` tells which from the bytes alone, so a caller can budget a re-encode's memory
 * (decode-cost.ts) before it starts. The file must have passed the upload guard (type, polyglot,
 * truncation, pixel limit) already.
 */
import sharp from 'sharp';
import { DomainError } from '../../domain/errors.ts';
import type { ImageFormat } from '../../domain/images/image.ts';
import { holdsMarkup, servableAsIs, textSegments, WEBP_IMAGE_CHUNKS, webpChunks } from './markup.ts';

/** A minimal EXIF APP1 segment carrying only the orientation (big-endian TIFF, one IFD entry). */
const orientationSegment = (orientation: number): Buffer => {
  const tiff = Buffer.alloc(26);
  tiff.write('MM', 0, 'latin1');
  tiff.writeUInt16BE(42, 2);
  tiff.writeUInt32BE(8, 4); // first IFD
  tiff.writeUInt16BE(1, 8); // one entry
  tiff.writeUInt16BE(0x0112, 10); // Orientation
  tiff.writeUInt16BE(3, 12); // SHORT
  tiff.writeUInt32BE(1, 14); // count
  tiff.writeUInt16BE(orientation, 18); // value (left-justified in 4 bytes)
  tiff.writeUInt32BE(0, 22); // no next IFD
  const payload = Buffer.concat([Buffer.from('Exif\u0000\u0000', 'latin1'), tiff]);
  const header = Buffer.from([0xff, 0xe1, 0, 0]);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([header, payload]);
};

/** The JPEG without the segments markup.ts counts as text; the scans and tables untouched. */
const stripJpeg = (bytes: Buffer, orientation: number): Buffer => {
  const drop = new Set(textSegments(bytes, 'jpg').map((segment) => segment.byteOffset - bytes.byteOffset - 4));
  const parts: Buffer[] = [bytes.subarray(0, 2)];
  if (orientation > 1 && orientation <= 8) parts.push(orientationSegment(orientation));
  let offset = 2;
  let kept = 2;
  // Walk the marker segments before the first scan; everything from the first SOS on is kept
  // except COM/APPn segments between progressive scans, found by their offsets.
  const sorted = [...drop].sort((a, b) => a - b);
  for (const start of sorted) {
    if (start < offset) continue;
    const length = bytes.readUInt16BE(start + 2);
    parts.push(bytes.subarray(kept, start));
    kept = start + 2 + length;
    offset = kept;
  }
  parts.push(bytes.subarray(kept));
  return Buffer.concat(parts);
};

const PNG_SIGNATURE_LENGTH = 8;
/** The PNG without its non-image chunks. */
const stripPng = (bytes: Buffer): Buffer => {
  const drop = new Set(textSegments(bytes, 'png').map((data) => data.byteOffset - bytes.byteOffset - 8));
  const parts: Buffer[] = [bytes.subarray(0, PNG_SIGNATURE_LENGTH)];
  let offset = PNG_SIGNATURE_LENGTH;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const end = Math.min(bytes.length, offset + 12 + length);
    if (!drop.has(offset)) parts.push(bytes.subarray(offset, end));
    if (bytes.toString('latin1', offset + 4, offset + 8) === 'IEND') break;
    offset = end;
  }
  return Buffer.concat(parts);
};

/** VP8X flags (the first byte of its payload) saying an ICC profile, EXIF or XMP chunk follows. */
const VP8X_METADATA_FLAGS = 0x20 | 0x08 | 0x04;

/**
 * The WebP without its metadata chunks (EXIF, XMP, ICCP and any unknown one), the VP8X flags that
 * announced them cleared and the RIFF size made right; the picture's chunks byte for byte. Null
 * when the chunks cannot be walked to the end (left to a re-encode, which decodes and so fails
 * on a broken file).
 */
const stripWebp = (bytes: Buffer): Buffer | null => {
  const parts: Buffer[] = [];
  let walked = 12;
  for (const { type, start, length, end } of webpChunks(bytes)) {
    if (end > bytes.length + (length % 2)) return null;
    if (WEBP_IMAGE_CHUNKS.has(type)) {
      const chunk = Buffer.alloc(end - start); // a missing pad byte after the last chunk put back
      bytes.copy(chunk, 0, start, Math.min(end, bytes.length));
      if (type === 'VP8X' && length >= 1) chunk[8] &= ~VP8X_METADATA_FLAGS;
      parts.push(chunk);
    }
    walked = end;
  }
  if (walked < bytes.length) return null;
  const body = Buffer.concat(parts);
  const header = Buffer.from(bytes.subarray(0, 12));
  header.writeUInt32LE(body.length + 4, 4);
  return Buffer.concat([header, body]);
};

/** The file without its text segments, or null when it cannot be done losslessly. */
const strip = (bytes: Buffer, format: ImageFormat, orientation: number): Buffer | null => {
  switch (format) {
    case 'jpg':
      return stripJpeg(bytes, orientation);
    case 'png':
      return stripPng(bytes);
    case 'webp':
      // its EXIF is what says it is turned: without it the picture would show on its side
      return orientation === 1 ? stripWebp(bytes) : null;
    case 'gif':
      return null;
  }
};

const reencode = async (bytes: Buffer, format: ImageFormat, maxPixels: number): Promise<Buffer> => {
  const pipeline = sharp(bytes, { limitInputPixels: maxPixels, failOn: 'truncated', animated: false }).rotate();
  const encoded =
    format === 'jpg'
      ? pipeline.jpeg({ quality: 90, optimiseCoding: false }) // full size: optimised tables would buffer every coefficient (decode-cost.ts)
      : format === 'png'
        ? pipeline.png()
        : format === 'webp'
          ? pipeline.webp({ quality: 90 })
          : pipeline.gif();
  return encoded.toBuffer();
};

export type CleanPhoto = { bytes: Buffer; how: 'as-is' | 'stripped' | 're-encoded' };

/** What cleaning a photo takes, told from its bytes alone: its servable bytes, or a re-encode. */
export type CleanPlan = { how: 'as-is' | 'stripped'; bytes: Buffer } | { how: 're-encode' };

/** Which way the photo is cleaned (see the top of this file), without decoding it. `orientation` is the EXIF orientation sharp read (1 when none). */
export const planClean = (bytes: Buffer, format: ImageFormat, orientation: number): CleanPlan => {
  if (servableAsIs(bytes, format) && orientation === 1) return { how: 'as-is', bytes };
  const stripped = strip(bytes, format, orientation);
  if (stripped && textSegments(stripped, format).length === (format === 'jpg' && orientation > 1 ? 1 : 0) && !holdsMarkup(stripped)) {
    return { how: 'stripped', bytes: stripped };
  }
  return { how: 're-encode' };
};

/** The photo's servable bytes (see the top of this file), following `plan` (planned here when not given). */
export const cleanPhoto = async (
  bytes: Buffer,
  format: ImageFormat,
  orientation: number,
  maxPixels: number,
  plan: CleanPlan = planClean(bytes, format, orientation),
): Promise<CleanPhoto> => {
  const result: CleanPhoto = plan.how === 're-encode' ? { bytes: await reencode(bytes, format, maxPixels), how: 're-encoded' } : plan;
  if (holdsMarkup(result.bytes)) throw new DomainError('image_polyglot', 'the file is not only an image: its bytes hold HTML even once re-encoded');
  return result;
};

/**
 * The bytes of a photo as they may be stored and served: nothing in them but the picture.
 * - JPEG and PNG are stripped losslessly: every segment that can carry text (JPEG COM and APPn —
 *   EXIF with its GPS, XMP, ICC, IPTC, vendors' — PNG text, EXIF, ICC and private chunks) is dropped
 *   and the image data is kept byte for byte (no generation loss, no decode). A JPEG's EXIF
 *   orientation survives as a minimal EXIF segment holding that one number.
 * - WebP with such chunks and GIF (whose extensions are not walked) are re-encoded from their
 *   pixels by sharp.
 * - Whatever remains is searched for HTML tags (markup.ts); image data shaped to hold one is
 *   re-encoded from its pixels, and bytes that still hold one are refused.
 * The file must have passed the upload guard (type, polyglot, truncation, pixel limit) already.
 */
import sharp from 'sharp';
import { DomainError } from '../../domain/errors.ts';
import type { ImageFormat } from '../../domain/images/image.ts';
import { holdsMarkup, servableAsIs, textSegments } from './markup.ts';

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

/** The photo's servable bytes (see the top of this file). `orientation` is the EXIF orientation sharp read (1 when none). */
export const cleanPhoto = async (bytes: Buffer, format: ImageFormat, orientation: number, maxPixels: number): Promise<CleanPhoto> => {
  if (servableAsIs(bytes, format) && orientation === 1) return { bytes, how: 'as-is' };
  let result: CleanPhoto | null = null;
  if (format === 'jpg' || format === 'png') {
    const stripped = format === 'jpg' ? stripJpeg(bytes, orientation) : stripPng(bytes);
    if (textSegments(stripped, format).length === (format === 'jpg' && orientation > 1 ? 1 : 0) && !holdsMarkup(stripped)) {
      result = { bytes: stripped, how: 'stripped' };
    }
  }
  if (!result) result = { bytes: await reencode(bytes, format, maxPixels), how: 're-encoded' };
  if (holdsMarkup(result.bytes)) throw new DomainError('image_polyglot', 'the file is not only an image: its bytes hold HTML even once re-encoded');
  return result;
};

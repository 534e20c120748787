/**
 * Polyglot detection: a file that is a valid image AND something else (a ZIP/JAR appended to a
 * JPEG, HTML or script hidden after the image data, a PDF). The image format ends where its own
 * structure says it ends; bytes after that end, or markup/archive signatures inside, make the
 * upload a polyglot. Pure functions over the bytes; no decoding.
 */
import type { ImageFormat } from '../../domain/images/image.ts';
import { markupInMetadata } from './markup.ts';

/** Trailing bytes tolerated after the image's end (some encoders pad with a few zero bytes). */
const MAX_PADDING = 16;

const SIGNATURES: { name: string; bytes: Buffer }[] = [
  { name: 'zip archive', bytes: Buffer.from('PK\u0003\u0004', 'latin1') },
  { name: 'pdf', bytes: Buffer.from('%PDF-', 'latin1') },
  { name: 'html', bytes: Buffer.from('<html', 'latin1') },
  { name: 'script', bytes: Buffer.from('<script', 'latin1') },
  { name: 'php', bytes: Buffer.from('<?php', 'latin1') },
  { name: 'svg', bytes: Buffer.from('<svg', 'latin1') },
];

const indexOfCaseless = (haystack: Buffer, needle: Buffer): number => {
  const lower = needle.toString('latin1').toLowerCase();
  const upper = needle.toString('latin1').toUpperCase();
  if (lower === upper) return haystack.indexOf(needle);
  const a = haystack.indexOf(Buffer.from(lower, 'latin1'));
  const b = haystack.indexOf(Buffer.from(upper, 'latin1'));
  return a === -1 ? b : b === -1 ? a : Math.min(a, b);
};

/** Where the PNG's IEND chunk ends, or -1 (walks the chunk list). */
const pngEnd = (bytes: Buffer): number => {
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const next = offset + 12 + length;
    if (next > bytes.length) return -1;
    if (type === 'IEND') return next;
    offset = next;
  }
  return -1;
};

/** Where the JPEG ends: after the last EOI marker (FFD9). */
const jpegEnd = (bytes: Buffer): number => {
  const eoi = bytes.lastIndexOf(Buffer.from([0xff, 0xd9]));
  return eoi === -1 ? -1 : eoi + 2;
};

/** Where the WebP ends: the RIFF header states the size. */
const webpEnd = (bytes: Buffer): number => (bytes.length >= 8 ? 8 + bytes.readUInt32LE(4) + (bytes.readUInt32LE(4) % 2) : -1);

/** A GIF's end cannot be found without walking its blocks: left to the signatures and the decoder. */
const gifEnd = (): number => -1;

const endOf: Record<ImageFormat, (bytes: Buffer) => number> = { png: pngEnd, jpg: jpegEnd, webp: webpEnd, gif: gifEnd };

/** The reason the bytes are a polyglot, or null. A missing end is left to the decoder (truncated). */
export const polyglotReason = (bytes: Buffer, format: ImageFormat): string | null => {
  const end = endOf[format](bytes);
  if (end !== -1 && end < bytes.length) {
    const trailing = bytes.subarray(end);
    const padding = trailing.length <= MAX_PADDING && trailing.every((byte) => byte === 0 || byte === 0x0a || byte === 0x0d);
    if (!padding) return `${trailing.length} bytes follow the end of the ${format} data`;
  }
  for (const signature of SIGNATURES) {
    if (indexOfCaseless(bytes, signature.bytes) > 0) return `the file also holds ${signature.name} content`;
  }
  if (markupInMetadata(bytes, format)) return 'its metadata (a comment, EXIF/XMP or text segment) holds HTML';
  return null;
};

/** Whether the bytes visibly stop before the format's end (checked before decoding; the decoder catches the rest). */
export const looksTruncated = (bytes: Buffer, format: ImageFormat): boolean => {
  let end = bytes.length;
  while (end > 0 && (bytes[end - 1] === 0 || bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d) && bytes.length - end < MAX_PADDING) end--;
  switch (format) {
    case 'webp':
      return webpEnd(bytes) > bytes.length;
    case 'gif':
      return bytes[end - 1] !== 0x3b;
    case 'png':
      return pngEnd(bytes) === -1;
    case 'jpg':
      return jpegEnd(bytes) === -1;
  }
};

/**
 * Polyglot detection: a file that is a valid image AND something else (a ZIP/JAR appended to a
 * JPEG, HTML or script hidden after the image data, a PDF). The image format ends where its own
 * structure says it ends; bytes after that end, or markup/archive signatures inside, make the
 * upload a polyglot. Pure functions over the bytes; no decoding.
 */
import type { ImageFormat } from '../../domain/images/image.ts';
import { markupInMetadata, webpChunks } from './markup.ts';

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

/** Every offset where the needle occurs, in lower or upper case. */
const offsetsOfCaseless = (haystack: Buffer, needle: Buffer): number[] => {
  const variants = new Set([needle.toString('latin1').toLowerCase(), needle.toString('latin1').toUpperCase()]);
  const found: number[] = [];
  for (const variant of variants) {
    const bytes = Buffer.from(variant, 'latin1');
    for (let at = haystack.indexOf(bytes); at !== -1; at = haystack.indexOf(bytes, at + 1)) found.push(at);
  }
  return found;
};

type Range = readonly [start: number, end: number];

/**
 * The stretches of compressed pixel data (JPEG scans, PNG IDAT, WebP VP8/VP8L/ALPH/ANMF payloads):
 * any byte sequence turns up there by chance (`<SVG` about once in a hundred photos), and the file
 * is re-encoded from its pixels whenever it holds a tag anywhere (markup.ts), so signatures found
 * only there do not make a polyglot. Empty when the structure cannot be walked: then the whole
 * file is searched.
 */
const compressedRanges = (bytes: Buffer, format: ImageFormat): Range[] => {
  const ranges: Range[] = [];
  if (format === 'jpg') {
    let offset = 2;
    while (offset + 4 <= bytes.length && bytes[offset] === 0xff) {
      const marker = bytes[offset + 1];
      if (marker === 0xff) {
        offset += 1; // fill byte
        continue;
      }
      if (marker === 0xd9) break;
      if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
        offset += 2;
        continue;
      }
      offset += 2 + bytes.readUInt16BE(offset + 2);
      if (marker !== 0xda) continue;
      let scan = offset;
      while (scan + 1 < bytes.length) {
        scan = bytes.indexOf(0xff, scan);
        if (scan === -1 || scan + 1 >= bytes.length) return [...ranges, [offset, bytes.length]];
        const next = bytes[scan + 1];
        if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break;
        scan += next === 0xff ? 1 : 2;
      }
      ranges.push([offset, scan]);
      offset = scan;
    }
  } else if (format === 'png') {
    let offset = 8;
    while (offset + 12 <= bytes.length) {
      const length = bytes.readUInt32BE(offset);
      const type = bytes.toString('latin1', offset + 4, offset + 8);
      if (type === 'IDAT' || type === 'fdAT') ranges.push([offset + 8, offset + 8 + length]);
      if (type === 'IEND') break;
      offset += 12 + length;
    }
  } else if (format === 'webp') {
    for (const { type, start, length } of webpChunks(bytes)) {
      if (type === 'VP8 ' || type === 'VP8L' || type === 'ALPH' || type === 'ANMF') ranges.push([start + 8, start + 8 + length]);
    }
  }
  return ranges;
};

/** Whether a signature starting at `at` lies wholly inside one of the ranges. */
const inside = (ranges: readonly Range[], at: number, length: number): boolean => ranges.some(([start, end]) => at >= start && at + length <= end);

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
  const compressed = compressedRanges(bytes, format);
  for (const signature of SIGNATURES) {
    const outside = offsetsOfCaseless(bytes, signature.bytes).some((at) => at > 0 && !inside(compressed, at, signature.bytes.length));
    if (outside) return `the file also holds ${signature.name} content`;
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

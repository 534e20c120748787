/**
 * Markup carried inside a picture: HTML hidden in a JPEG comment or APPn segment, a PNG text chunk,
 * a WebP EXIF/XMP chunk — or in the image data itself. A browser that is tricked into reading such
 * a file as HTML runs it, so files are never served with those bytes in them: a file whose segments
 * could carry text, or whose bytes hold a tag, is re-encoded from its pixels (process-upload.ts,
 * clean-photo.ts), and markup in its metadata refuses it outright (polyglot.ts). Pure functions over
 * the bytes; no decoding.
 */
import type { ImageFormat } from '../../domain/images/image.ts';

/**
 * Tags a browser acts on, `<` then the name then a delimiter, any case. Names of three letters or
 * more only: in random bytes (compressed image data) `<a ` turns up every megabyte or so, these
 * almost never — and finding one only costs a re-encode, never a refusal.
 */
const ELEMENTS = 'html|head|body|script|svg|iframe|frame|frameset|img|object|embed|meta|link|style|form|input|math|base|video|audio|source|template|applet|marquee|details|button|textarea|isindex|xss';
const TAG = new RegExp(`^<(?:!doctype|${ELEMENTS})[\\s/>]`, 'i');
/**
 * An element a browser acts on, without `<!DOCTYPE`: a DOCTYPE alone is what ordinary software writes
 * into metadata (Photoshop's APP13 print settings are an XML plist, `<!DOCTYPE plist …>`), so it
 * costs a re-encode but never refuses a photo.
 */
const ELEMENT = new RegExp(`^<(?:${ELEMENTS})[\\s/>]`, 'i');

/** Whether the bytes hold an HTML tag (or a DOCTYPE) anywhere; `tag` narrows what counts. */
export const holdsMarkup = (bytes: Buffer, tag: RegExp = TAG): boolean => {
  let at = bytes.indexOf(0x3c);
  while (at !== -1) {
    if (tag.test(bytes.toString('latin1', at, Math.min(bytes.length, at + 12)))) return true;
    at = bytes.indexOf(0x3c, at + 1);
  }
  return false;
};

/** A JPEG's segments that can carry text: COM, APP1–APP15 (EXIF, XMP, ICC, IPTC, vendors'), and an APP0 that is more than the plain JFIF header. */
const jpegTextSegments = (bytes: Buffer): Buffer[] => {
  const found: Buffer[] = [];
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return found; // not a marker where one must be: left to the decoder
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) return found; // EOI
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      offset += 2;
      continue;
    }
    const length = bytes.readUInt16BE(offset + 2);
    const data = bytes.subarray(offset + 4, Math.min(bytes.length, offset + 2 + length));
    const plainJfif = marker === 0xe0 && length === 16 && data.toString('latin1', 0, 5) === 'JFIF\u0000';
    const plainAdobe = marker === 0xee && length <= 16 && data.toString('latin1', 0, 5) === 'Adobe';
    if (marker === 0xfe || (marker >= 0xe0 && marker <= 0xef && !plainJfif && !plainAdobe)) found.push(data);
    offset += 2 + length;
    if (marker === 0xda) {
      // Entropy-coded data up to the next marker (0xFF followed by neither 0x00 nor a restart marker).
      let scan = offset;
      while (scan + 1 < bytes.length) {
        scan = bytes.indexOf(0xff, scan);
        if (scan === -1 || scan + 1 >= bytes.length) return found;
        const next = bytes[scan + 1];
        if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break;
        scan += next === 0xff ? 1 : 2;
      }
      offset = scan;
    }
  }
  return found;
};

/** PNG chunks a picture needs; every other chunk (tEXt, zTXt, iTXt, eXIf, iCCP, private ones) can carry text. */
const PNG_IMAGE_CHUNKS = new Set(['IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'sBIT', 'pHYs', 'bKGD', 'acTL', 'fcTL', 'fdAT']);
const pngTextSegments = (bytes: Buffer): Buffer[] => {
  const found: Buffer[] = [];
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (!PNG_IMAGE_CHUNKS.has(type)) found.push(bytes.subarray(offset + 8, Math.min(bytes.length, offset + 8 + length)));
    if (type === 'IEND') break;
    offset += 12 + length;
  }
  return found;
};

/**
 * A WebP's chunks in order, as their headers say, after the 12-byte RIFF header: `start` is the
 * chunk's header, its payload `length` bytes from `start + 8`, `end` where the next one starts (a
 * pad byte after an odd length). The last may claim to run past the end of a cut-short file.
 */
export function* webpChunks(bytes: Buffer): Generator<{ type: string; start: number; length: number; end: number }> {
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(offset + 4);
    const end = offset + 8 + length + (length % 2);
    yield { type: bytes.toString('latin1', offset, offset + 4), start: offset, length, end };
    offset = end;
  }
}

/** WebP chunks a picture needs; EXIF, XMP, ICCP and unknown chunks can carry text. */
export const WEBP_IMAGE_CHUNKS = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF']);
const webpTextSegments = (bytes: Buffer): Buffer[] => {
  const found: Buffer[] = [];
  for (const { type, start, length } of webpChunks(bytes)) {
    if (!WEBP_IMAGE_CHUNKS.has(type)) found.push(bytes.subarray(start + 8, Math.min(bytes.length, start + 8 + length)));
  }
  return found;
};

/**
 * The segments of the file that can carry text rather than pixels. A GIF's comment and application
 * extensions are not walked: GIFs are always re-encoded.
 */
export const textSegments = (bytes: Buffer, format: ImageFormat): Buffer[] => {
  switch (format) {
    case 'jpg':
      return jpegTextSegments(bytes);
    case 'png':
      return pngTextSegments(bytes);
    case 'webp':
      return webpTextSegments(bytes);
    case 'gif':
      return [];
  }
};

/** Markup in a segment meant for metadata: the file was made to be read as HTML (refused as a polyglot). */
export const markupInMetadata = (bytes: Buffer, format: ImageFormat): boolean => textSegments(bytes, format).some((segment) => holdsMarkup(segment, ELEMENT));

/** Whether the bytes may be served as they came: no segment that can carry text, and no tag anywhere. */
export const servableAsIs = (bytes: Buffer, format: ImageFormat): boolean => format !== 'gif' && textSegments(bytes, format).length === 0 && !holdsMarkup(bytes);

import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { DomainError } from '../../domain/errors.ts';
import type { ImageFormat } from '../../domain/images/image.ts';
import { cleanPhoto, planClean } from '../../infrastructure/images/clean-photo.ts';
import { looksTruncated, polyglotReason } from '../../infrastructure/images/polyglot.ts';
import { decodeCost, tooLargeToDecodeWhole, tooLargeToReencodeWhole } from '../../infrastructure/images/decode-cost.ts';
import type { DecodeMemory } from '../../infrastructure/images/process-upload.ts';
import { PHOTO_TYPES, sniffFile } from './sniff.ts';

/** Decoding guard: pictures beyond this many pixels are refused before they are decoded. */
export const MAX_PHOTO_PIXELS = 50_000_000;

const FORMAT_OF: Record<(typeof PHOTO_TYPES)[number], ImageFormat> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };

export type CheckedPhoto = {
  mime: string;
  width: number;
  height: number;
  /** The bytes to store and serve: the upload without any segment that can carry text (clean-photo.ts). */
  bytes: Buffer;
  /** Whether `bytes` differ from the upload (stripped or re-encoded). */
  changed: boolean;
};

/**
 * A photo as its bytes say, through the same guard as image uploads: the type sniffed (JPEG, PNG,
 * WebP or GIF, else 415); a polyglot — data after the picture's end, an archive, HTML in its
 * metadata — refused (400 image_polyglot); a visibly cut-short file refused; then decoded by sharp
 * under a pixel limit (a pixel bomb is refused from its header) into a small thumbnail, so a
 * truncated or corrupt file is found here (400 invalid_media), not later. Answers the bytes to
 * store: stripped of comments and metadata, or re-encoded, so no markup is ever served back.
 * Decoding waits for its cost, told from the header (decode-cost.ts), in `memory`.
 */
export const checkPhoto = async (path: string, size: number, label: string, memory?: DecodeMemory): Promise<CheckedPhoto> => {
  if (size === 0) throw new DomainError('invalid_media', `${label} is empty`);
  const type = await sniffFile(path);
  if (!type || !(PHOTO_TYPES as readonly string[]).includes(type.mime)) {
    throw new DomainError('unsupported_media_type', `${label} is ${type ? type.mime : 'not a recognised picture'}: photos must be JPEG, PNG, WebP or GIF`);
  }
  const format = FORMAT_OF[type.mime as (typeof PHOTO_TYPES)[number]];
  const bytes = await readFile(path);
  const polyglot = polyglotReason(bytes, format);
  if (polyglot) throw new DomainError('image_polyglot', `${label} is not only a picture: ${polyglot}`);
  if (looksTruncated(bytes, format)) throw new DomainError('invalid_media', `${label} cannot be read as ${type.mime}: the data is cut short`);
  let release: () => void = () => undefined;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: MAX_PHOTO_PIXELS }).metadata();
    if (!metadata.width || !metadata.height) throw new Error('no size');
    if (metadata.width * metadata.height > MAX_PHOTO_PIXELS) throw new Error('too many pixels');
    // Decoded whole whatever is made of it, a tiny file can take hundreds of MiB (decode-cost.ts).
    if (tooLargeToDecodeWhole(metadata)) {
      throw new Error(`${metadata.width}×${metadata.height} is too large for a GIF, interlaced PNG or progressive JPEG (at most 4096×4096: each is decoded whole)`);
    }
    // Stripped without decoding where it can be; a re-encode counted in the decoding's cost.
    const orientation = metadata.orientation ?? 1;
    const plan = planClean(bytes, format, orientation);
    const reencodes = plan.how === 're-encode';
    if (reencodes && tooLargeToReencodeWhole(format, metadata.width * metadata.height)) {
      throw new Error(`${metadata.width}×${metadata.height} is too large for a WebP that has to be re-encoded (turned by its EXIF, or holding markup): at most 4096×4096, it is encoded whole`);
    }
    if (memory) release = await memory.acquire(decodeCost(metadata, { reencodesFull: reencodes }));
    await sharp(bytes, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'truncated' }).resize(32, 32, { fit: 'inside' }).toBuffer();
    const clean = await cleanPhoto(bytes, format, orientation, MAX_PHOTO_PIXELS, plan);
    const upright = clean.how === 're-encoded' && orientation >= 5;
    return { mime: type.mime, width: upright ? metadata.height : metadata.width, height: upright ? metadata.width : metadata.height, bytes: clean.bytes, changed: clean.how !== 'as-is' };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError('invalid_media', `${label} cannot be read as ${type.mime}: ${(error as Error).message}`);
  } finally {
    release();
  }
};

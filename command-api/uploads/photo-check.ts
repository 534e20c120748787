import sharp from 'sharp';
import { DomainError } from '../../domain/errors.ts';
import { PHOTO_TYPES, sniffFile } from './sniff.ts';

/** Decoding guard: pictures beyond this many pixels are refused before they are decoded. */
export const MAX_PHOTO_PIXELS = 50_000_000;

export type CheckedPhoto = { mime: string; width: number; height: number };

/**
 * A photo as its bytes say: the type sniffed (JPEG, PNG, WebP or GIF, else 415), then decoded by
 * sharp under a pixel limit (a pixel bomb is refused from its header) into a small thumbnail, so
 * a truncated or corrupt file is found here (400 invalid_media), not later.
 * (Kept small and separate so it can be unified with the images work's upload guards.)
 */
export const checkPhoto = async (path: string, size: number, label: string): Promise<CheckedPhoto> => {
  if (size === 0) throw new DomainError('invalid_media', `${label} is empty`);
  const type = await sniffFile(path);
  if (!type || !(PHOTO_TYPES as readonly string[]).includes(type.mime)) {
    throw new DomainError('unsupported_media_type', `${label} is ${type ? type.mime : 'not a recognised picture'}: photos must be JPEG, PNG, WebP or GIF`);
  }
  try {
    const metadata = await sharp(path, { limitInputPixels: MAX_PHOTO_PIXELS }).metadata();
    if (!metadata.width || !metadata.height) throw new Error('no size');
    if (metadata.width * metadata.height > MAX_PHOTO_PIXELS) throw new Error('too many pixels');
    await sharp(path, { limitInputPixels: MAX_PHOTO_PIXELS, failOn: 'truncated' }).resize(32, 32, { fit: 'inside' }).toBuffer();
    return { mime: type.mime, width: metadata.width, height: metadata.height };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError('invalid_media', `${label} cannot be read as ${type.mime}: ${(error as Error).message}`);
  }
};

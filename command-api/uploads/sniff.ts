import { fileTypeFromFile } from 'file-type';

/** The media type the bytes say they are (file-type reads the first few KiB), or null. */
export const sniffFile = async (path: string): Promise<{ ext: string; mime: string } | null> => (await fileTypeFromFile(path)) ?? null;

/** The spec's video containers (415 otherwise), by sniffed type: see infrastructure/media/containers.ts. */
export { VIDEO_TYPES } from '../../infrastructure/media/containers.ts';

/** Photos accepted: JPEG, PNG, WebP and GIF (as TheCatAPI). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;

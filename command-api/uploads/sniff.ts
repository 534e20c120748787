import { fileTypeFromFile } from 'file-type';

/** The media type the bytes say they are (file-type reads the first few KiB), or null. */
export const sniffFile = async (path: string): Promise<{ ext: string; mime: string } | null> => (await fileTypeFromFile(path)) ?? null;

/** The spec's video containers (415 otherwise): MP4, MOV, WebM, AVI, MPEG, 3GP. */
export const VIDEO_TYPES: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/x-m4v': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'video/vnd.avi': 'avi',
  'video/mpeg': 'mpeg',
  'video/3gpp': '3gp',
  'video/3gpp2': '3gp',
};

/** Photos accepted: JPEG, PNG, WebP and GIF (as TheCatAPI). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;

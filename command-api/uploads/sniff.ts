import { fileTypeFromFile } from 'file-type';

/** The media type the bytes say they are (file-type reads the first few KiB), or null. */
export const sniffFile = async (path: string): Promise<{ ext: string; mime: string } | null> => (await fileTypeFromFile(path)) ?? null;

/**
 * The spec's video containers (415 otherwise): MP4, MOV, WebM, AVI, MPEG, 3GP — by the type
 * file-type sniffs, to the container and the media type recorded. MPEG covers the MPEG-1 and
 * MPEG-2 program streams (.mpg) and the MPEG-2 transport stream (.ts).
 */
export const VIDEO_TYPES: Record<string, { container: string; mime: string }> = {
  'video/mp4': { container: 'mp4', mime: 'video/mp4' },
  'video/x-m4v': { container: 'mp4', mime: 'video/mp4' },
  'video/quicktime': { container: 'mov', mime: 'video/quicktime' },
  'video/webm': { container: 'webm', mime: 'video/webm' },
  'video/vnd.avi': { container: 'avi', mime: 'video/vnd.avi' },
  'video/mpeg': { container: 'mpeg', mime: 'video/mpeg' },
  'video/MP1S': { container: 'mpeg', mime: 'video/mpeg' },
  'video/MP2P': { container: 'mpeg', mime: 'video/mpeg' },
  'video/mp2t': { container: 'mpeg', mime: 'video/mp2t' },
  'video/3gpp': { container: '3gp', mime: 'video/3gpp' },
  'video/3gpp2': { container: '3gp', mime: 'video/3gpp2' },
};

/** Photos accepted: JPEG, PNG, WebP and GIF (as TheCatAPI). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;

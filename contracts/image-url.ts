import type { ImageFormat } from '../domain/images/image.ts';

/**
 * The public address of an image's bytes: `/v1/images/files/<url_token>.<ext>`. The token is 24
 * random bytes drawn at upload, unrelated to the image id, so knowing an image id (or guessing
 * ids) never reveals its file; the file route needs no API key (browsers load it in <img>).
 */
export const imageFilePath = (image: { url_token: string; format: ImageFormat }): string => `/v1/images/files/${image.url_token}.${image.format}`;

/** The absolute url: the deployment's PUBLIC_BASE_URL (or the request's origin) + the file path. */
export const imageUrl = (baseUrl: string, image: { url_token: string; format: ImageFormat }): string =>
  `${baseUrl.replace(/\/+$/, '')}${imageFilePath(image)}`;

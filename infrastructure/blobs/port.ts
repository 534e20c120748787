import type { Readable } from 'node:stream';

/** Stored bytes (uploaded images, videos, generated portraits), addressed by a key. */
export interface BlobStore {
  put(key: string, data: Buffer | Readable, contentType: string): Promise<{ size: number }>;
  /** null when there is no blob with that key. */
  get(key: string): Promise<{ data: Buffer; contentType: string } | null>;
  stream(key: string): Promise<{ stream: Readable; contentType: string; size: number } | null>;
  delete(key: string): Promise<boolean>;
  close(): Promise<void>;
}

export const isValidBlobKey = (key: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(key);

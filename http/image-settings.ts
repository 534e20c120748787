import type { BlobStore } from '../infrastructure/blobs/port.ts';
import type { Config } from '../infrastructure/config.ts';

/** The image settings both APIs take from the configuration (quota default, upload-sync wait, public origin). */
export const imageSettingsOf = (config: Config, blobs: BlobStore) => ({
  blobs,
  uploadQuota: config.imageUploadQuota,
  syncTimeoutMs: config.uploadSyncTimeoutMs,
  publicBaseUrl: config.publicBaseUrl,
});

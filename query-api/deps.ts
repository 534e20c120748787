import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { BlobStore } from '../infrastructure/blobs/port.ts';

/** Image files and quota views: the blob store, the default monthly quota, PUBLIC_BASE_URL. */
export type ImageQuerySettings = { blobs: BlobStore; uploadQuota: number; publicBaseUrl?: string };

export type QueryApiDeps = {
  readStore: ReadStore;
  /** Waits (bounded) until every read model reflects the whole log as it is now. */
  catchUp: () => Promise<void>;
  /** Without it the image file route answers 503 not_ready. */
  images?: ImageQuerySettings;
};

/**
 * A lookup that finds nothing waits for the read models to catch up with the log, then looks
 * again: a 404 then means "not there", never "not projected yet" (e.g. another account's vote
 * written a moment ago answers 403, not 404).
 */
export const findFresh = async <T>(deps: QueryApiDeps, lookup: () => Promise<T | null>): Promise<T | null> => {
  const found = await lookup();
  if (found !== null) return found;
  await deps.catchUp();
  return lookup();
};

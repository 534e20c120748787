import type { ReadStore } from '../infrastructure/read-store/port.ts';

export type QueryApiDeps = {
  readStore: ReadStore;
  /** Waits (bounded) until every read model reflects the whole log as it is now. */
  catchUp: () => Promise<void>;
  /** PUBLIC_BASE_URL: the origin of image urls; unset = the request's own origin. */
  publicBaseUrl?: string;
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

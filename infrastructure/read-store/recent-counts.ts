/** How many counts are remembered per store (all are forgotten when one more would not fit). */
const MAX_COUNTS = 1_000;

type Entry = { at: number; seen: bigint | null } & ({ n: number } | { pending: Promise<number> });

/**
 * Counts a caller accepts up to `maxAgeMs` old (`count(filter, { maxAgeMs, projection })`), for a
 * store whose count walks every match (MongoDB's countDocuments walks the index range): the random
 * image search's public side is one count over every public image, asked on every search. A count
 * is made at most once per `maxAgeMs` per filter, and callers asking while it is under way wait for
 * that one. Each count keeps `seen`, the highest checkpoint this process knew, when it started, of
 * the projection that writes the collection; a caller that must see a write (`atLeast`, the
 * position its read-your-writes wait reached) is given only a count started after the process
 * had seen the projection pass it. A failed count is not kept.
 */
export const recentCounts = (now: () => number = () => performance.now()) => {
  const entries = new Map<string, Entry>();

  return (key: string, options: { maxAgeMs: number; seen: bigint | null; atLeast?: bigint | null }, count: () => Promise<number>): Promise<number> => {
    const at = now();
    const known = entries.get(key);
    const sawEnough = (seen: bigint | null) => options.atLeast == null || (seen !== null && seen >= options.atLeast);
    if (known && at - known.at <= options.maxAgeMs && sawEnough(known.seen)) {
      return 'pending' in known ? known.pending : Promise.resolve(known.n);
    }
    if (entries.size >= MAX_COUNTS) entries.clear();
    const pending = count().then(
      (n) => {
        if (entries.get(key)?.at === at) entries.set(key, { n, at, seen: options.seen });
        return n;
      },
      (error: unknown) => {
        if (entries.get(key)?.at === at) entries.delete(key);
        throw error;
      },
    );
    entries.set(key, { pending, at, seen: options.seen });
    return pending;
  };
};

/**
 * Reads by id from many callers gathered into one query: the ids asked for within one turn of the
 * event loop (until setImmediate fires) leave together, `maxIds` per query at most, and each
 * caller gets the documents of its own ids. The query starts after every caller in it asked, so a
 * read still sees every write completed before it was asked for. Under load this turns one round
 * trip per request (the image a vote embeds, a key's account) into one per turn.
 */
export const idBatcher = <D>(readMany: (ids: string[]) => Promise<Map<string, D>>, maxIds = 500) => {
  type Waiting = { ids: readonly string[]; resolve: (found: Map<string, D>) => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];

  const run = async (batch: Waiting[]) => {
    const ids = [...new Set(batch.flatMap((caller) => caller.ids))];
    const found = new Map<string, D>();
    try {
      for (let start = 0; start < ids.length; start += maxIds) {
        for (const [id, doc] of await readMany(ids.slice(start, start + maxIds))) found.set(id, doc);
      }
    } catch (error) {
      for (const caller of batch) caller.reject(error);
      return;
    }
    // Each document goes to its first caller as read, to the others as a copy: no two callers share one.
    const handedOut = new Set<string>();
    for (const caller of batch) {
      const own = new Map<string, D>();
      for (const id of caller.ids) {
        const doc = found.get(id);
        if (doc === undefined || own.has(id)) continue;
        own.set(id, handedOut.has(id) ? structuredClone(doc) : doc);
        handedOut.add(id);
      }
      caller.resolve(own);
    }
  };

  return (ids: readonly string[]): Promise<Map<string, D>> => {
    if (ids.length === 0) return Promise.resolve(new Map());
    return new Promise((resolve, reject) => {
      if (waiting.length === 0) {
        setImmediate(() => {
          const batch = waiting;
          waiting = [];
          void run(batch);
        });
      }
      waiting.push({ ids, resolve, reject });
    });
  };
};

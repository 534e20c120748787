import { getPath, matches } from './filter.ts';
import type { Doc, Filter } from './port.ts';

/** How many counts are remembered per store (all are forgotten when one more would not fit). */
const MAX_COUNTS = 2_000;

type Entry = { filter: Filter | undefined; n: number };

/** The first top-level equality on a string or number (`account_id: 'a'`), found at the top or in a top-level $and. */
const pinOf = (filter: Filter | undefined): [string, string | number] | null => {
  if (!filter) return null;
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      for (const member of value as Filter[]) {
        const pin = pinOf(member);
        if (pin) return pin;
      }
    } else if (!key.startsWith('$') && (typeof value === 'string' || typeof value === 'number')) {
      return [key, value];
    }
  }
  return null;
};

type Counts = { unpinned: Set<Entry>; pinned: Map<string, Map<string | number, Set<Entry>>>; byKey: Map<string, Entry> };

/**
 * The counts a collection's list queries made (Pagination-Count counts every match), kept right
 * as the collection is written: each applied write moves the counts whose filter the document
 * matched before or matches after (filter.ts, the semantics the SQL follows), so a list asked again
 * counts nothing, even while the collection grows. To find those counts without trying each, they
 * are filed by their filter's first equality (the account, mostly). Counts are exact for one
 * writer: a store following another process's writes forgets them all when it sees the file move.
 */
export const countCache = () => {
  const collections = new Map<string, Counts>();
  let size = 0;

  const clear = () => {
    collections.clear();
    size = 0;
  };

  return {
    get: (collection: string, key: string): number | undefined => collections.get(collection)?.byKey.get(key)?.n,

    set: (collection: string, key: string, filter: Filter | undefined, n: number) => {
      if (size >= MAX_COUNTS) clear();
      let counts = collections.get(collection);
      if (!counts) collections.set(collection, (counts = { unpinned: new Set(), pinned: new Map(), byKey: new Map() }));
      if (counts.byKey.has(key)) return;
      const entry: Entry = { filter, n };
      counts.byKey.set(key, entry);
      const pin = pinOf(filter);
      if (!pin) counts.unpinned.add(entry);
      else {
        let values = counts.pinned.get(pin[0]);
        if (!values) counts.pinned.set(pin[0], (values = new Map()));
        let entries = values.get(pin[1]);
        if (!entries) values.set(pin[1], (entries = new Set()));
        entries.add(entry);
      }
      size += 1;
    },

    /** Whether any count of the collection is kept (a write then needs the document it replaces). */
    tracking: (collection: string): boolean => (collections.get(collection)?.byKey.size ?? 0) > 0,

    /** An applied write: `before` is the live document it replaced (null: none), `after` the new one (null: deleted). */
    moved: (collection: string, before: Doc | null, after: Doc | null) => {
      const counts = collections.get(collection);
      if (!counts) return;
      const candidates = new Set(counts.unpinned);
      for (const [field, values] of counts.pinned) {
        for (const doc of [before, after]) {
          if (!doc) continue;
          const value = getPath(doc, field);
          for (const item of Array.isArray(value) ? value : [value]) {
            if (typeof item === 'string' || typeof item === 'number') for (const entry of values.get(item) ?? []) candidates.add(entry);
          }
        }
      }
      for (const entry of candidates) {
        entry.n += (after && matches(after, entry.filter) ? 1 : 0) - (before && matches(before, entry.filter) ? 1 : 0);
      }
    },

    /** The collection is gone (dropped): its counts too. */
    forget: (collection: string) => {
      size -= collections.get(collection)?.byKey.size ?? 0;
      collections.delete(collection);
    },

    clear,
  };
};

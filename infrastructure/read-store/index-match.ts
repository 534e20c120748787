import { isOperatorObject } from './filter.ts';
import type { Filter, IndexKeys, QueryPlan, SortSpec } from './port.ts';

/**
 * Which of a collection's indexes would serve a query, by the rule MongoDB's planner follows
 * (equality fields first, then the sort fields in the sort's directions or all reversed), for
 * servers that cannot explain a query themselves (the Mongo-wire test server answers no `explain`).
 * A top-level `$or` is served when each of its branches is (MongoDB merges the branches' index
 * scans in sort order). `$in` counts as equality (MongoDB explodes a short `$in` for a sort).
 */
type Conjunct = { equal: Set<string>; ranged: Set<string>; or: Filter[][] };

const EQUALITY_OPERATORS = new Set(['$eq', '$in']);
const RANGE_OPERATORS = new Set(['$gt', '$gte', '$lt', '$lte']);

const conjunct = (filter: Filter, into: Conjunct = { equal: new Set(), ranged: new Set(), or: [] }): Conjunct => {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') for (const sub of value as Filter[]) conjunct(sub, into);
    else if (key === '$or') into.or.push(value as Filter[]);
    else if (!isOperatorObject(value)) into.equal.add(key);
    else if (Object.keys(value).some((op) => EQUALITY_OPERATORS.has(op))) into.equal.add(key);
    else if (Object.keys(value).some((op) => RANGE_OPERATORS.has(op))) into.ranged.add(key);
  }
  return into;
};

/** The fields the filter's conjunction (its $or left aside) asks to equal a value or one of a list. */
export const equalityFields = (filter: Filter = {}): string[] => [...conjunct(filter).equal];

/** Fields the filter's conjunction asks to be true or false. */
const booleanFields = (filter: Filter, into = new Set<string>()): Set<string> => {
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') for (const sub of value as Filter[]) booleanFields(sub, into);
    else if (typeof value === 'boolean' || (isOperatorObject(value) && typeof (value as { $eq?: unknown }).$eq === 'boolean')) into.add(key);
  }
  return into;
};

/** Whether `keys` serves a conjunction without $or: some filter field leads it, and it gives the sort. */
const serves = (keys: [string, number][], equal: Set<string>, ranged: Set<string>, sort: [string, number][]): { narrows: boolean; sorted: boolean; matched: number } => {
  let i = 0;
  while (i < keys.length && equal.has(keys[i][0])) i += 1;
  const narrows = i > 0 || (keys.length > 0 && ranged.has(keys[0][0]));
  if (sort.length === 0) return { narrows, sorted: true, matched: i };
  const rest = keys.slice(i);
  if (rest.length < sort.length) return { narrows, sorted: false, matched: i };
  const sign = rest[0][1] * sort[0][1];
  const sorted = sort.every(([field, direction], k) => rest[k][0] === field && rest[k][1] * direction === sign);
  return { narrows, sorted, matched: i };
};

/**
 * The index to serve a query with, by the same rule, for a store whose own planner cannot tell a
 * selective index from one that is not (SQLite without statistics walks `{public, …}` for one
 * account's private images): among the indexes whose leading fields are equality fields of the
 * filter's conjunction (its $or left aside) that `usable` accepts, the one matching the most of
 * them; a page (`paged`: a sort and a limit) prefers one that also gives the sort. Null when no
 * index leads with such a field.
 */
export const chooseIndex = <K extends [string, number][]>(
  indexes: readonly K[],
  filter: Filter = {},
  options: { sort?: SortSpec; paged?: boolean; usable?: (field: string) => boolean } = {},
): K | null => {
  const top = conjunct(filter);
  const equal = new Set([...top.equal].filter(options.usable ?? (() => true)));
  const flags = booleanFields(filter);
  const sort = Object.entries(options.sort ?? {}) as [string, number][];
  const fits = indexes
    .map((keys) => ({ keys, ...serves(keys, equal, new Set(), sort) }))
    .filter((fit) => fit.matched > 0)
    // A flag (true/false) splits a collection in two at best: the other equalities it leads with narrow more.
    .map((fit) => ({ ...fit, narrowing: fit.keys.slice(0, fit.matched).filter(([field]) => !flags.has(field)).length }));
  const rank = (fit: (typeof fits)[number]) =>
    options.paged && sort.length > 0 ? [Number(fit.sorted), fit.narrowing, fit.matched] : [fit.narrowing, fit.matched, Number(fit.sorted)];
  fits.sort((a, b) => {
    const [ra, rb] = [rank(a), rank(b)];
    return rb[0] - ra[0] || rb[1] - ra[1] || rb[2] - ra[2];
  });
  return fits[0]?.keys ?? null;
};

/** The plan a MongoDB planner would find among `indexes` (each an IndexKeys, `_id` always indexed). */
export const planByIndexes = (indexes: readonly IndexKeys[], filter: Filter = {}, sort: SortSpec = {}): QueryPlan => {
  const all = [{ _id: 1 } as IndexKeys, ...indexes].map((keys) => Object.entries(keys) as [string, number][]);
  const sortEntries = Object.entries(sort) as [string, number][];
  const top = conjunct(filter);
  // A top-level $or: each branch with the rest of the conjunction (one $or; more are rare and left to the first).
  const branches: Conjunct[] =
    top.or.length === 0
      ? [top]
      : top.or[0].map((branch) => {
          const own = conjunct(branch);
          return { equal: new Set([...top.equal, ...own.equal]), ranged: new Set([...top.ranged, ...own.ranged]), or: [] };
        });
  const narrowing = top.equal.size + top.ranged.size > 0 || top.or.length > 0;
  const chosen: string[] = [];
  let scans = false;
  let sortsInMemory = false;
  let partialPrefix = false;
  for (const branch of branches) {
    // The index matching most equalities first (MongoDB's trial runs pick it: it reads the fewest entries).
    const fits = all.map((keys) => ({ keys, ...serves(keys, branch.equal, branch.ranged, sortEntries) })).sort((a, b) => b.matched - a.matched);
    const best = fits.find((fit) => fit.narrows && fit.sorted) ?? fits.find((fit) => fit.narrows) ?? fits.find((fit) => fit.sorted && sortEntries.length > 0);
    if (!best) {
      scans = true;
      sortsInMemory ||= sortEntries.length > 0;
      chosen.push('COLLSCAN');
      continue;
    }
    if (!best.narrows && narrowing) scans = true;
    if (!best.sorted) sortsInMemory = true;
    if (best.matched < branch.equal.size) partialPrefix = true;
    chosen.push(`IXSCAN ${JSON.stringify(Object.fromEntries(best.keys))}${best.sorted ? '' : ' + SORT'}`);
  }
  return { scans, sortsInMemory, partialPrefix, detail: `by the declared indexes: ${chosen.join(' | ')}` };
};

/** Stages of a MongoDB explain's winning plan, depth first. */
export const planStages = (plan: unknown): string[] => {
  if (!plan || typeof plan !== 'object') return [];
  const node = plan as { stage?: string; inputStage?: unknown; inputStages?: unknown[]; queryPlan?: unknown };
  return [
    ...(node.stage ? [node.stage] : []),
    ...planStages(node.queryPlan),
    ...planStages(node.inputStage),
    ...(node.inputStages ?? []).flatMap(planStages),
  ];
};

import type { ImageFilterQuery } from '../contracts/image-queries.ts';
import { queryBoolean } from '../contracts/common.ts';
import { Collections, type ImageDoc, type ImageSearchEntryDoc } from '../contracts/read-models.ts';
import { commaList } from '../http/paging.ts';
import type { CountOptions, Filter, ReadStore } from '../infrastructure/read-store/port.ts';
import { drawFairly } from './fair-sample.ts';
import { formatOf, imageFilter } from './image-filters.ts';

type DrawQuery = Partial<ImageFilterQuery>;
/**
 * How old the public side's counts may be (the public images matching, the search entries of a
 * key): one count for every caller, which a store without a count cache (MongoDB) would otherwise
 * walk over every public image on every search. The caller's own side is always counted afresh.
 */
export const PUBLIC_COUNT_MAX_AGE_MS = 1_000;
/**
 * The public side's counts: shared for PUBLIC_COUNT_MAX_AGE_MS, but never one begun before the
 * images projection passed the caller's own last write (`seenWrite`, read-your-writes).
 */
const publicCount = (seenWrite: bigint | null | undefined): CountOptions => ({ maxAgeMs: PUBLIC_COUNT_MAX_AGE_MS, projection: 'images', atLeast: seenWrite ?? null });
/** The search's filters the random draw serves from the search entries (entryFilterOf). */
const ENTRY_FILTERS = new Set(['breed_ids', 'breed_id', 'species_id', 'has_breeds', 'category_ids', 'mime_types']);
/** What a search takes besides filters (paging, rendering). */
const NOT_FILTERS = new Set(['limit', 'page', 'order', 'order_by', 'size', 'format', 'lang', 'include_breeds', 'include_categories', 'include_colours']);

/**
 * Whether the random draw can come from the search entries: every filter given is one of theirs.
 * Any other (breed groups, colours, ages, sub_id, account_id, and any filter added later until the
 * entries carry it) draws the old way, by reading the matching ids.
 */
export const drawsFromEntries = (query: Record<string, unknown>): boolean =>
  Object.entries(query).every(([name, value]) => value === undefined || ENTRY_FILTERS.has(name) || NOT_FILTERS.has(name));

/**
 * The search entries' filter of a query (ImageSearchEntryDoc): the narrowest key — the breeds
 * asked for, else the species, else all — and the other filters on the entries' own fields. With
 * several breeds, an image tagged with k of them has k entries: `copiesOf` says how many.
 */
export const entryFilterOf = (query: DrawQuery): { filter: Filter; copiesOf: (entry: ImageSearchEntryDoc) => number } => {
  const breedIds = [...new Set([...commaList(query.breed_ids), ...(query.breed_id ? [query.breed_id.toLowerCase()] : [])])];
  const and: Filter[] = [];
  if (breedIds.length > 0) {
    and.push({ key: breedIds.length === 1 ? `breed:${breedIds[0]}` : { $in: breedIds.map((id) => `breed:${id}`) } });
    if (query.species_id) and.push({ species_id: query.species_id });
  } else and.push({ key: query.species_id ? `species:${query.species_id}` : 'all' });
  const hasBreeds = queryBoolean(query.has_breeds);
  if (hasBreeds !== undefined) and.push({ has_breeds: hasBreeds });
  const categories = commaList(query.category_ids);
  if (categories.length > 0) and.push({ category_ids: { $in: categories } });
  const formats = commaList(query.mime_types).map(formatOf);
  if (formats.length > 0) and.push({ format: { $in: formats } });
  const filter = and.length === 1 ? and[0] : { $and: and };
  const asked = new Set(breedIds);
  const copiesOf = (entry: ImageSearchEntryDoc) => (asked.size > 1 ? Math.max(1, entry.breed_ids.filter((id) => asked.has(id)).length) : 1);
  return { filter, copiesOf };
};

/**
 * `want` distinct public images that match, drawn fairly from the search entries (fair-sample.ts):
 * the entries of the query's key are counted (an index range count), then read a bucket of random
 * keys at a time. Null when the draw could not finish (the caller then reads the matching ids).
 */
export const drawFromEntries = async (
  readStore: ReadStore,
  query: DrawQuery,
  want: number,
  random: () => number,
  seenWrite: bigint | null = null,
): Promise<string[] | null> => {
  const entries = readStore.collection<ImageSearchEntryDoc>(Collections.imageSearchEntries);
  const { filter, copiesOf } = entryFilterOf(query);
  const result = await drawFairly({
    total: await entries.count(filter, publicCount(seenWrite)),
    want,
    random,
    readBucket: async (low, high, max) =>
      (await entries.find({ $and: [filter, { random: { $gte: low, $lt: high } }] }, { limit: max })).map((entry) => ({ id: entry.image_id, copies: copiesOf(entry) })),
  });
  return result?.ids ?? null;
};

const shuffle = <T>(items: T[], random: () => number): T[] => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
};

/**
 * `limit` images drawn uniformly without repeats from the public images that match and the
 * caller's own that are not public (the search's scope), and `total`: how many match in all.
 * The two sides are counted apart — the public side's count is one for every caller (up to
 * PUBLIC_COUNT_MAX_AGE_MS old where the store keeps no exact count), the own side's one per
 * account — where a count of "public or own" would be one per account over the whole public
 * side. Each draw picks the caller's own side with the chance its remaining share of the
 * matches gives it, so every image of either side is equally likely. The public side draws from
 * the search entries (fair-sample.ts) without reading the set; a side of at most twice the images
 * it is to give (a few hundred at most) is drawn by reading its matching ids, as is a draw
 * fair-sample.ts reports it cannot finish.
 */
export const drawRandomImages = async (
  readStore: ReadStore,
  input: { accountId: string; query: DrawQuery; limit: number; random?: () => number; seenWrite?: bigint | null },
): Promise<{ total: number; images: ImageDoc[] }> => {
  const random = input.random ?? Math.random;
  const images = readStore.collection<ImageDoc>(Collections.images);
  const [ownFilter, publicFilter] = await Promise.all([
    imageFilter(readStore, { account_id: input.accountId, public: false }, input.query),
    imageFilter(readStore, { public: true }, input.query),
  ]);
  const [own, open] = await Promise.all([images.count(ownFilter), images.count(publicFilter, publicCount(input.seenWrite))]);
  const total = own + open;
  let fromOwn = 0;
  let fromPublic = 0;
  for (let left = Math.min(input.limit, total); left > 0; left--) {
    const remainingOwn = own - fromOwn;
    const remainingPublic = open - fromPublic;
    if (remainingOwn + remainingPublic <= 0) break;
    if (random() * (remainingOwn + remainingPublic) < remainingOwn) fromOwn += 1;
    else fromPublic += 1;
  }
  const drawn: ImageDoc[] = fromOwn > 0 ? await images.sample(ownFilter, fromOwn) : [];
  if (fromPublic > 0) {
    const ids = open > 2 * fromPublic ? await drawFromEntries(readStore, input.query, fromPublic, random, input.seenWrite ?? null) : null;
    if (ids) {
      const found = await images.getMany(ids);
      drawn.push(...ids.flatMap((id) => (found.has(id) ? [found.get(id)!] : [])));
    } else drawn.push(...(await images.sample(publicFilter, fromPublic)));
  }
  return { total, images: shuffle(drawn, random) };
};

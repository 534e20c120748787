import type { FastifyReply } from 'fastify';
import { normaliseOrder, styleBOffset, type Order, type StyleBQuery } from '../contracts/paging.ts';
import type { Collection, Doc, Filter, SortSpec } from '../infrastructure/read-store/port.ts';

export const setPaginationHeaders = (reply: FastifyReply, count: number, page: number, limit: number): void => {
  reply.header('Pagination-Count', String(count));
  reply.header('Pagination-Page', String(page));
  reply.header('Pagination-Limit', String(limit));
};

/**
 * Style A paging over a read-model collection: ASC/DESC sort by `sortField` (ties broken by
 * _id), RANDOM draws `limit` documents at random (page is then meaningless and ignored).
 */
export const pageStyleA = async <T extends Doc>(
  reply: FastifyReply,
  collection: Collection<T>,
  filter: Filter,
  query: { limit: number; page: number; order?: string },
  options: { sortField: string; defaultOrder: Order },
): Promise<T[]> => {
  const order = normaliseOrder(query.order) ?? options.defaultOrder;
  const count = await collection.count(filter);
  setPaginationHeaders(reply, count, query.page, query.limit);
  if (order === 'RANDOM') return collection.sample(filter, query.limit);
  const direction = order === 'DESC' ? -1 : 1;
  const sort: SortSpec = { [options.sortField]: direction, _id: direction };
  return collection.find(filter, { sort, skip: query.page * query.limit, limit: query.limit });
};

/**
 * Style B paging: `limit` + `offset`, or `page` (offset = page × limit; `offset` wins). The page
 * header reports offset / limit. `order` DESC reverses `sort`; RANDOM draws `limit` documents.
 */
export const pageStyleB = async <T extends Doc>(
  reply: FastifyReply,
  collection: Collection<T>,
  filter: Filter,
  query: StyleBQuery,
  sort: SortSpec,
): Promise<T[]> => {
  const offset = styleBOffset(query);
  const order = normaliseOrder(query.order) ?? 'ASC';
  const count = await collection.count(filter);
  setPaginationHeaders(reply, count, Math.floor(offset / query.limit), query.limit);
  if (order === 'RANDOM') return collection.sample(filter, query.limit);
  const direction = order === 'DESC' ? -1 : 1;
  const ordered: SortSpec = Object.fromEntries(Object.entries(sort).map(([field, value]) => [field, value * direction])) as SortSpec;
  return collection.find(filter, { sort: ordered, skip: offset, limit: query.limit });
};

/** `a, B ,c` → ['a', 'b', 'c'] (lower-cased, empty items dropped). */
export const commaList = (value: string | undefined): string[] =>
  value
    ? value
        .split(',')
        .map((item) => item.trim().toLowerCase())
        .filter(Boolean)
    : [];

/** Up to `size` items drawn at random without repeats (order=RANDOM). */
export const drawRandom = <T>(items: readonly T[], size: number): T[] => {
  const pool = [...items];
  const drawn: T[] = [];
  while (drawn.length < size && pool.length > 0) drawn.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
  return drawn;
};

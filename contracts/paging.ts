import { Type, type Static } from '@sinclair/typebox';

/**
 * Paging style A (`limit`, zero-based `page`, `order`) and style B (`limit`, `offset`).
 * Responses of paged lists carry Pagination-Count, Pagination-Page and Pagination-Limit.
 */
export const OrderValues = ['ASC', 'DESC', 'RANDOM', 'RAND', 'asc', 'desc', 'random', 'rand'] as const;
export type Order = 'ASC' | 'DESC' | 'RANDOM';

const orderParam = (description: string, defaultOrder?: Order) =>
  Type.Optional(
    Type.Union(
      OrderValues.map((value) => Type.Literal(value)),
      { description, ...(defaultOrder ? { default: defaultOrder } : {}) },
    ),
  );

export const styleA = (defaults: { limit: number; maxLimit?: number; order?: Order }) => ({
  limit: Type.Integer({ minimum: 1, maximum: defaults.maxLimit ?? 100, default: defaults.limit }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  order: orderParam('ASC, DESC or RANDOM (RAND is accepted as RANDOM), any case', defaults.order),
});

/**
 * Style B: `limit` + `offset`. TheCatAPI clients page these lists with `page` instead, so `page`
 * is accepted too (offset = page × limit; `offset` wins when both are given), and `order` sorts
 * ASC/DESC by id or draws RANDOM (RAND) records.
 */
export const styleB = (defaults: { limit: number; maxLimit?: number }) => ({
  limit: Type.Integer({ minimum: 1, maximum: defaults.maxLimit ?? 100, default: defaults.limit }),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'records to skip (default 0); wins over `page`' })),
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'zero-based page: offset = page × limit (when `offset` is absent)' })),
  order: orderParam('ASC (default) or DESC by id, or RANDOM (RAND accepted), any case: `limit` records drawn at random'),
});

/** A style-B query as the paging helper reads it. */
export type StyleBQuery = { limit: number; offset?: number; page?: number; order?: string };

/** The offset a style-B query asks for: `offset` if given, else page × limit. */
export const styleBOffset = (query: StyleBQuery): number => query.offset ?? (query.page ?? 0) * query.limit;

export const normaliseOrder = (order: string | undefined): Order | undefined => {
  if (order === undefined) return undefined;
  const upper = order.toUpperCase();
  return upper === 'RAND' ? 'RANDOM' : (upper as Order);
};

const StyleAExample = Type.Object(styleA({ limit: 10 }));
export type StyleAQuery = Static<typeof StyleAExample>;

export const PAGINATION_HEADERS = ['Pagination-Count', 'Pagination-Page', 'Pagination-Limit'] as const;

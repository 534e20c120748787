import { Type, type Static } from '@sinclair/typebox';

/**
 * Paging style A (`limit`, zero-based `page`, `order`) and style B (`limit`, `offset`).
 * Responses of paged lists carry Pagination-Count, Pagination-Page and Pagination-Limit.
 */
export const OrderValues = ['ASC', 'DESC', 'RANDOM', 'RAND', 'asc', 'desc', 'random', 'rand'] as const;
export type Order = 'ASC' | 'DESC' | 'RANDOM';

export const styleA = (defaults: { limit: number; maxLimit?: number; order?: Order }) => ({
  limit: Type.Integer({ minimum: 1, maximum: defaults.maxLimit ?? 100, default: defaults.limit }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  order: Type.Optional(
    Type.Union(
      OrderValues.map((value) => Type.Literal(value)),
      { description: 'ASC, DESC or RANDOM (RAND is accepted as RANDOM)', ...(defaults.order ? { default: defaults.order } : {}) },
    ),
  ),
});

export const styleB = (defaults: { limit: number; maxLimit?: number }) => ({
  limit: Type.Integer({ minimum: 1, maximum: defaults.maxLimit ?? 100, default: defaults.limit }),
  offset: Type.Integer({ minimum: 0, maximum: 100_000_000, default: 0 }),
});

export const normaliseOrder = (order: string | undefined): Order | undefined => {
  if (order === undefined) return undefined;
  const upper = order.toUpperCase();
  return upper === 'RAND' ? 'RANDOM' : (upper as Order);
};

const StyleAExample = Type.Object(styleA({ limit: 10 }));
export type StyleAQuery = Static<typeof StyleAExample>;

export const PAGINATION_HEADERS = ['Pagination-Count', 'Pagination-Page', 'Pagination-Limit'] as const;

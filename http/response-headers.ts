import type { FastifyInstance } from 'fastify';
import { PAGINATION_HEADERS } from '../contracts/paging.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a page of a list: its 200 carries Pagination-Count, -Page and -Limit. */
    paged?: boolean;
  }
}

const integerHeader = (description: string) => ({ type: 'integer', minimum: 0, description });

export const PAGINATION_HEADER_SCHEMAS: Record<(typeof PAGINATION_HEADERS)[number], object> = {
  'Pagination-Count': integerHeader('how many records match the query, over all pages'),
  'Pagination-Page': integerHeader('the zero-based page this answer is (style B: offset / limit)'),
  'Pagination-Limit': integerHeader('records per page'),
};

export const RATE_LIMIT_HEADER_SCHEMAS = {
  'RateLimit-Limit': integerHeader('requests allowed per window (one minute) for this API key'),
  'RateLimit-Remaining': integerHeader('requests left in the current window'),
  'RateLimit-Reset': integerHeader('seconds until the window resets'),
};

export const RETRY_AFTER_HEADER_SCHEMA = { 'Retry-After': integerHeader('seconds to wait before trying again') };

/**
 * Declares the response headers clients read in the OpenAPI document, so generated SDKs expose
 * them: Pagination-* on the 200 of every paged operation (routes with `config: { paged: true }`),
 * RateLimit-* on every response (a request refused before the limiter counted it — no key, an
 * unknown key, the admin key — carries none: OpenAPI headers are optional), Retry-After on 429. An onRoute hook, like
 * documentHttpErrors: a route added later is covered without more code. The response schemas
 * are replaced by copies (resource schemas are shared between routes).
 */
export const documentResponseHeaders = (app: FastifyInstance, options: { rateLimited: boolean }): void => {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, Record<string, unknown>>; hide?: boolean } | undefined;
    if (!schema?.response || schema.hide) return;
    const config = (route.config ?? {}) as { paged?: boolean; auth?: string };
    // The admin key is never rate-limited (see rate-limit.ts); public routes are, by client address.
    const limited = options.rateLimited && config.auth !== 'admin';
    for (const [status, response] of Object.entries(schema.response)) {
      const headers: Record<string, object> = {};
      if (config.paged && status === '200') Object.assign(headers, PAGINATION_HEADER_SCHEMAS);
      if (limited) Object.assign(headers, RATE_LIMIT_HEADER_SCHEMAS);
      if (status === '429') Object.assign(headers, RATE_LIMIT_HEADER_SCHEMAS, RETRY_AFTER_HEADER_SCHEMA);
      if (Object.keys(headers).length === 0) continue;
      schema.response[status] = { ...response, headers: { ...(response.headers as object | undefined), ...headers } };
    }
  });
};

import type { FastifyRequest } from 'fastify';

/**
 * The API key a request presents: the `x-api-key` header, or else the `api_key` query parameter
 * (TheCatAPI accepts it and browser demos use it). The header wins when both are given.
 *
 * The query form is a risk the caller takes: a URL ends up in browser history, bookmarks, proxy
 * and CDN logs, and the Referer header of links followed from the page. Our own logs redact it
 * (http/request-log.ts) and error envelopes show the path without the query, but nothing can
 * redact what others record. Use the header wherever the client can set one.
 */
export const presentedApiKey = (request: FastifyRequest): string | undefined => {
  const header = request.headers['x-api-key'];
  const fromHeader = Array.isArray(header) ? header[0] : header;
  if (fromHeader) return fromHeader;
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.api_key;
  const value = Array.isArray(fromQuery) ? fromQuery[0] : fromQuery;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** The two ways of presenting a key, as the OpenAPI document declares them. */
export const API_KEY_SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'the account key (preferred)' },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description:
      'the same key as a query parameter, for clients that cannot set headers (TheCatAPI accepts it too). ' +
      'Risk: URLs are kept in browser history, proxy and CDN logs and Referer headers, so a key sent this way can leak; ' +
      'this service redacts it from its own logs. The header wins when both are sent.',
  },
} as const;

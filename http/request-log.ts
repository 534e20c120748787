import type { FastifyRequest } from 'fastify';

/** Query parameters that may carry a secret: TheCatAPI clients sometimes send `?api_key=`. */
const SECRET_QUERY = /([?&](?:api_key|apikey|x-api-key|key|token|secret|signing_secret)=)[^&#]*/gi;

export const redactUrl = (url: string): string => url.replace(SECRET_QUERY, '$1[redacted]');

/**
 * What a request log line shows of the request: method, URL (secret query values redacted),
 * host, client address and request id — never headers, so x-api-key cannot reach a log.
 */
export const requestLogSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
  id: request.id,
});

import type { FastifyRequest } from 'fastify';

/**
 * The origin image urls start with: the deployment's PUBLIC_BASE_URL when set, otherwise the
 * origin the request reached us at (Fastify's `protocol` and `host`, which honour X-Forwarded-*
 * only when `trustProxy` is on).
 */
export const baseUrlOf = (request: FastifyRequest, configured: string | undefined): string =>
  configured ? configured.replace(/\/+$/, '') : `${request.protocol}://${request.host}`;

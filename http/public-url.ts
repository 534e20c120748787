import type { FastifyRequest } from 'fastify';

/**
 * The origin public image urls start with: PUBLIC_BASE_URL when the deployment sets it (behind a
 * proxy or CDN), otherwise the origin the request came to.
 */
export const publicBaseUrl = (request: FastifyRequest, configured: string | undefined): string =>
  configured ?? `${request.protocol}://${request.host}`;

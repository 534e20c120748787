import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../infrastructure/metrics/metrics.ts';
import { metricsAuthorized } from '../infrastructure/metrics/server.ts';
import { DomainError } from '../domain/errors.ts';

export type HttpMetricsOptions = { metrics: Metrics; token: string | undefined };

/**
 * Times every request by route template (`/v1/votes/:id`, never the raw URL: bounded label
 * values) and status. `GET /metrics` on the API port exists only when METRICS_TOKEN is set and
 * answers only to `Authorization: Bearer <token>`; without a token the metrics are served on
 * METRICS_PORT alone (or nowhere), so they are never public by accident.
 */
export const registerHttpMetrics = (app: FastifyInstance, options: HttpMetricsOptions): void => {
  app.addHook('onResponse', async (request, reply) => {
    options.metrics.httpRequests.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  if (options.token === undefined) return;
  const token = options.token;
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'public' } }, async (request, reply) => {
    if (!metricsAuthorized(token, request.headers.authorization)) throw new DomainError('forbidden', 'metrics need Authorization: Bearer <METRICS_TOKEN>');
    return reply.header('content-type', options.metrics.registry.contentType).header('cache-control', 'no-store').send(await options.metrics.registry.metrics());
  });
};

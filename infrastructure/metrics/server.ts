import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from './metrics.ts';
import { secretsEqual } from '../ids.ts';

export type Readiness = () => Promise<{ ready: boolean; details?: Record<string, unknown> }>;

/** True when the request may read the metrics: no token configured, or the right bearer token. */
export const metricsAuthorized = (token: string | undefined, authorization: string | undefined): boolean => {
  if (token === undefined) return true;
  const match = /^Bearer (.+)$/.exec(authorization ?? '');
  return match !== null && secretsEqual(match[1], token);
};

const json = (status: number, body: unknown) => ({ status, type: 'application/json; charset=utf-8', body: JSON.stringify(body) });

/**
 * The separate operations listener (METRICS_PORT): GET /metrics, /health and /ready, nothing
 * else. Plain node:http, so a process without an API (projectors, processors, dispatcher) gets one
 * without a web framework.
 */
export const startMetricsServer = async (options: {
  metrics: Metrics;
  port: number;
  host: string;
  token: string | undefined;
  readiness: Readiness;
}): Promise<{ url: string; close: () => Promise<void> }> => {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const answer = async () => {
      if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { status: 'method_not_allowed' });
      if (path === '/health') return json(200, { status: 'ok' });
      if (path === '/ready') {
        try {
          const result = await options.readiness();
          return json(result.ready ? 200 : 503, { status: result.ready ? 'ready' : 'not_ready', ...result.details });
        } catch (error) {
          return json(503, { status: 'not_ready', error: String(error) });
        }
      }
      if (path === '/metrics') {
        if (!metricsAuthorized(options.token, request.headers.authorization)) return json(401, { status: 'unauthorized' });
        return { status: 200, type: options.metrics.registry.contentType, body: await options.metrics.registry.metrics() };
      }
      return json(404, { status: 'not_found' });
    };
    answer().then(
      ({ status, type, body }) => {
        response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      () => {
        response.writeHead(500);
        response.end();
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};

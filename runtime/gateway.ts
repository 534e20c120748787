import Fastify, { type FastifyInstance } from 'fastify';
import proxy from '@fastify/http-proxy';
import { logRedactPaths } from '../infrastructure/logger.ts';
import { fastifyTrustProxy } from '../http/limits.ts';

export type GatewayOptions = {
  /** Base URLs of command-api replicas (writes) and query-api replicas (reads). */
  commandApi: string[];
  queryApi: string[];
  logLevel?: string;
  /** TRUST_PROXY of the gateway itself, when another proxy (TLS) stands in front of it. */
  trustProxy?: boolean | number | string;
};

/** The client address appended to X-Forwarded-For, so the APIs (TRUST_PROXY=1) count limits per client. */
const forwardedFor = (existing: string | string[] | undefined, client: string): string =>
  [...(Array.isArray(existing) ? existing : existing ? [existing] : []), client].join(', ');

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'];
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The /v1 gateway of the separate-process topology: routes by method — reads to the query API,
 * writes to the command API — through @fastify/http-proxy, spreading requests over replicas
 * round-robin. It adds nothing to the API: errors, auth and read-your-writes are the upstreams'.
 */
export const createGateway = async (options: GatewayOptions): Promise<FastifyInstance> => {
  const app = Fastify({
    ...fastifyTrustProxy(options.trustProxy),
    logger: { level: options.logLevel ?? 'info', redact: { paths: logRedactPaths, censor: '[redacted]' } },
    requestIdHeader: 'x-request-id',
  });
  const roundRobin = (bases: string[]) => {
    let next = 0;
    return () => bases[next++ % bases.length];
  };
  const register = async (bases: string[], methods: string[]) => {
    const pick = roundRobin(bases);
    await app.register(proxy, {
      upstream: '',
      prefix: '/',
      httpMethods: methods,
      replyOptions: {
        getUpstream: () => pick(),
        rewriteRequestHeaders: (request, headers) => ({ ...headers, 'x-forwarded-for': forwardedFor(headers['x-forwarded-for'], request.ip) }),
      },
      http: { requestOptions: { timeout: 130_000 } },
    });
  };
  await register(options.queryApi, READ_METHODS);
  await register(options.commandApi, WRITE_METHODS);
  return app;
};

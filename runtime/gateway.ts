import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import proxy from '@fastify/http-proxy';
import { logRedactPaths } from '../infrastructure/logger.ts';
import { errorChain } from '../infrastructure/error-chain.ts';
import { fastifyTrustProxy } from '../http/limits.ts';
import { DomainError } from '../domain/errors.ts';
import { sendError } from '../http/errors.ts';
import { upstreamPool, type UpstreamPool } from './gateway-upstreams.ts';

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

/** Errors of a connection that never reached the replica: nothing was applied, a retry is safe. */
const NOT_REACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

const causeCode = (error: unknown): string => {
  for (const { code } of errorChain(error, { depth: 4 })) if (typeof code === 'string' && !code.startsWith('FST_')) return code;
  return '';
};

/**
 * A replica that could not answer, in the API's error envelope: 503 `upstream_unavailable` with
 * Retry-After when the connection never reached it (killed, restarting: nothing was applied),
 * 504 `upstream_timeout` when it did not answer in time, 502 `upstream_failed` when it went away
 * mid-request (a write may or may not have been applied). Never a bare 500.
 */
const upstreamError = (pool: UpstreamPool) => (proxied: unknown, { error }: { error: unknown }): void => {
  // The proxy types its reply for HTTP/2 as well; the gateway serves HTTP/1 only.
  const reply = proxied as FastifyReply;
  const request = reply.request as FastifyRequest & { upstream?: string };
  const code = causeCode(error);
  const statusCode = (error as { statusCode?: number }).statusCode;
  request.log.warn({ upstream: request.upstream, code, statusCode }, 'upstream failed');
  if (NOT_REACHED.has(code)) {
    if (request.upstream) pool.markDown(request.upstream);
    sendError(reply, new DomainError('upstream_unavailable', 'the API replica could not be reached; nothing was applied, try again', { retryAfterSeconds: 1 }));
    return;
  }
  if (statusCode === 504 || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT') {
    sendError(reply, new DomainError('upstream_timeout', 'the API replica did not answer in time'));
    return;
  }
  if (request.upstream) pool.markDown(request.upstream);
  sendError(reply, new DomainError('upstream_failed', 'the API replica went away before answering; a write may or may not have been applied'));
};

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'];
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The /v1 gateway of the separate-process topology: routes by method — reads to the query API,
 * writes to the command API — through @fastify/http-proxy, spreading requests over replicas
 * round-robin (a replica that refused a connection is skipped for a moment). It adds nothing to the
 * API: errors, auth and read-your-writes are the upstreams', but for a replica that cannot answer.
 */
export const createGateway = async (options: GatewayOptions): Promise<FastifyInstance> => {
  const app = Fastify({
    ...fastifyTrustProxy(options.trustProxy),
    logger: { level: options.logLevel ?? 'info', redact: { paths: logRedactPaths, censor: '[redacted]' } },
    requestIdHeader: 'x-request-id',
  });
  const register = async (bases: string[], methods: string[]) => {
    const pool = upstreamPool(bases);
    await app.register(proxy, {
      upstream: '',
      prefix: '/',
      httpMethods: methods,
      replyOptions: {
        getUpstream: (request) => {
          const base = pool.pick();
          (request as FastifyRequest & { upstream?: string }).upstream = base;
          return base;
        },
        onError: upstreamError(pool),
        // No retries by the proxy: by default it sends a GET answered 503 again, up to 10 times,
        // reading Retry-After as milliseconds — a replica's 503 (its database out of reach) would
        // hold the client for ten of the replica's timeouts instead of answering at once.
        retryDelay: () => null,
        rewriteRequestHeaders: (request, headers) => ({ ...headers, 'x-forwarded-for': forwardedFor(headers['x-forwarded-for'], request.ip) }),
      },
      http: { requestOptions: { timeout: 130_000 } },
    });
  };
  await register(options.queryApi, READ_METHODS);
  await register(options.commandApi, WRITE_METHODS);
  return app;
};

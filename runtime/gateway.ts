import Fastify, { type FastifyInstance } from 'fastify';
import proxy from '@fastify/http-proxy';
import { logRedactPaths } from '../infrastructure/logger.ts';

export type GatewayOptions = {
  /** Base URLs of command-api replicas (writes) and query-api replicas (reads). */
  commandApi: string[];
  queryApi: string[];
  logLevel?: string;
};

const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'];
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The /v1 gateway of the separate-process topology: routes by method — reads to the query API,
 * writes to the command API — through @fastify/http-proxy, spreading requests over replicas
 * round-robin. It adds nothing to the API: errors, auth and read-your-writes are the upstreams'.
 */
export const createGateway = async (options: GatewayOptions): Promise<FastifyInstance> => {
  const app = Fastify({
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
      replyOptions: { getUpstream: () => pick() },
      http: { requestOptions: { timeout: 130_000 } },
    });
  };
  await register(options.queryApi, READ_METHODS);
  await register(options.commandApi, WRITE_METHODS);
  return app;
};

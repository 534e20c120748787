import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorEnvelope } from '../contracts/common.ts';
import { Image } from '../contracts/image-resource.ts';
import { PAGINATION_HEADERS } from '../contracts/paging.ts';
import { envelope, registerErrorHandling } from './errors.ts';
import { registerAuth, type AuthDependencies } from './auth.ts';
import { validatorCompiler } from './validation.ts';
import { logRedactPaths } from '../infrastructure/logger.ts';
import { recordRouteTable } from './route-table.ts';
import { DEFAULT_RATE_LIMIT, registerRateLimit, type RateLimitSettings } from './rate-limit.ts';
import { BodyLimits, documentHttpErrors, fastifyTrustProxy, registerMultipart } from './limits.ts';
import { requestLogSerializer } from './request-log.ts';
import { lazyRequestLoggers } from './request-logger.ts';
import { clientErrorHandler } from './client-errors.ts';
import { allowedMethodsFinder } from './method-not-allowed.ts';
import { registerCompression } from './compression.ts';
import { documentResponseHeaders } from './response-headers.ts';
import { API_KEY_SECURITY_SCHEMES } from './api-key.ts';
import { registerHttpMetrics, type HttpMetricsOptions } from './metrics.ts';
import { prettyTransport } from '../infrastructure/logger.ts';
import { sharedSerializers } from './serializers.ts';
import { markOptionalBodies, registerJsonBody } from './json-body.ts';
import { registerOperationIds } from './operation-ids.ts';
import { registerStoreReachability } from './unavailable.ts';

export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export type HttpAppOptions = {
  auth: AuthDependencies;
  logLevel?: string;
  /** For tests that want silence. */
  logger?: boolean;
  title: string;
  /** Readiness check for /ready; resolves with details, rejects or returns ready=false when not ready. */
  readiness?: () => Promise<{ ready: boolean; details?: Record<string, unknown> }>;
  bodyLimit?: number;
  /** Requests per minute per API key (false: none, for benchmarks). */
  rateLimit?: RateLimitSettings | false;
  /** A request's headers and body must arrive within requestTimeoutMs, its headers within headersTimeoutMs (slow clients are cut off). */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Request metrics, and /metrics behind METRICS_TOKEN (http/metrics.ts). */
  metrics?: HttpMetricsOptions;
  /** TRUST_PROXY: which proxies' X-Forwarded-For names the client (Fastify trustProxy); unset: none. */
  trustProxy?: boolean | number | string;
};

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The HTTP surface both APIs share: request ids, JSON logs with redaction, the error envelope,
 * authentication, CORS, OpenAPI at /v1/openapi.json with a docs UI at /v1/docs, /health and /ready.
 * Route sets are added as plugins under /v1 by the command API and the query API.
 */
export const createHttpApp = async (options: HttpAppOptions): Promise<HttpApp> => {
  const app = Fastify({
    ...fastifyTrustProxy(options.trustProxy),
    logger:
      options.logger === false
        ? false
        : {
            level: options.logLevel ?? 'info',
            redact: { paths: logRedactPaths, censor: '[redacted]' },
            serializers: { req: requestLogSerializer },
            ...prettyTransport(),
          },
    childLoggerFactory: lazyRequestLoggers,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    bodyLimit: options.bodyLimit ?? BodyLimits.json,
    return503OnClosing: true,
    // Idle sockets close after 60 s; a request must be complete within requestTimeout (uploads of up
    // to 200 MB included) and its headers within headersTimeout (slow-loris). Node checks the two
    // on an interval, made short enough here for the headers deadline to bite on time.
    connectionTimeout: 60_000,
    requestTimeout: options.requestTimeoutMs ?? 300_000,
    http: {
      headersTimeout: Math.min(options.headersTimeoutMs ?? 20_000, options.requestTimeoutMs ?? 300_000),
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor((options.headersTimeoutMs ?? 20_000) / 4))),
    },
    clientErrorHandler,
    // `/v1/votes/` is `/v1/votes`: TheCatAPI's own Postman collection calls `/v1/images/`.
    // A path parameter longer than any id or stream name is refused before routing: answered as a
    // 400 envelope (frameworkErrors), like a malformed URL, instead of Fastify's bare 414.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 512 },
    frameworkErrors: (error, request, reply) => {
      const message = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is longer than 512 characters' : 'malformed URL';
      void (reply as FastifyReply).code(400).send(envelope(request, 400, [message], 'validation_failed'));
    },
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  recordRouteTable(app);
  registerOperationIds(app);
  documentHttpErrors(app);
  documentResponseHeaders(app, { rateLimited: options.rateLimit !== false });
  app.setValidatorCompiler(validatorCompiler);
  registerJsonBody(app);
  app.addSchema(ErrorEnvelope);
  // The one Image schema every answer carrying an image references (#/components/schemas/Image).
  app.addSchema(Image);
  // (A callback hook: an async one costs a promise per response, on every route.)
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  await app.register(cors, {
    origin: true,
    // An OPTIONS request that is not a full preflight still gets the CORS headers (204), not a text/plain 400.
    strictPreflight: false,
    exposedHeaders: [...PAGINATION_HEADERS, 'x-request-id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Content-Language', 'ETag'],
    allowedHeaders: ['content-type', 'x-api-key', 'x-request-id', 'if-none-match'],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  });

  if (options.rateLimit !== false) await registerRateLimit(app, options.rateLimit ?? DEFAULT_RATE_LIMIT);
  await registerCompression(app);
  await registerMultipart(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: options.title,
        version: '1.0.0',
        description:
          'Animal, pet and image data API. Every operation needs the header x-api-key (or the query parameter api_key: see its risk in the security schemes). Errors are always the JSON envelope {statusCode, timestamp, path, message, error, code?}.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: API_KEY_SECURITY_SCHEMES },
      security: [{ apiKey: [] }, { apiKeyQuery: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string) ?? `def-${i}` },
    transformObject: (document) => markOptionalBodies('openapiObject' in document ? document.openapiObject : document.swaggerObject, app.routeTable),
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs', uiConfig: { deepLinking: true } });

  registerErrorHandling(app, allowedMethodsFinder(app.routeTable));
  registerStoreReachability(app);
  registerAuth(app, options.auth);
  if (options.metrics) registerHttpMetrics(app, options.metrics);

  app.get('/v1/openapi.json', { schema: { hide: true }, config: { auth: 'public' } }, async () => app.swagger());
  app.get('/health', { schema: { hide: true }, config: { auth: 'public' } }, async () => ({ status: 'ok' }));
  // /ready is public: its answer is shared for a second, so callers cannot turn it into store reads.
  const readiness = options.readiness ? sharedFor(1_000, options.readiness) : undefined;
  app.get('/ready', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) => {
    try {
      const result = (await readiness?.()) ?? { ready: true };
      return reply.code(result.ready ? 200 : 503).send({ status: result.ready ? 'ready' : 'not_ready', ...result.details });
    } catch (error) {
      return reply.code(503).send({ status: 'not_ready', error: String(error) });
    }
  });

  return app;
};

/** One call's outcome shared by every caller for `ms` (failures are not kept). */
const sharedFor = <T>(ms: number, call: () => Promise<T>): (() => Promise<T>) => {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    if (last && Date.now() - last.at < ms) return last.value;
    const value = call();
    const entry = { at: Date.now(), value };
    last = entry;
    value.catch(() => {
      if (last === entry) last = null;
    });
    return value;
  };
};

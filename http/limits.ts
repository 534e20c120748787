import type { FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { DomainError } from '../domain/errors.ts';
import type { Config } from '../infrastructure/config.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a multipart/form-data body (request.files() / request.file()). */
    multipart?: boolean;
  }
}

const MiB = 1024 * 1024;

/** Request body limits. Routes state theirs with the `bodyLimit` route option. */
export const BodyLimits = {
  /** Default of every JSON route (413 payload_too_large beyond it). */
  json: 1 * MiB,
  /** Small JSON commands (votes, favourites): a few hundred bytes are enough. */
  smallJson: 64 * 1024,
  /** JSON with a base64 image (`type=base64` upload): a 50 MB photo grows by 4/3 in base64. */
  base64Photo: Math.ceil((50 * MiB * 4) / 3) + 64 * 1024,
} as const;

/** The spec's upload limits ("Limits": photo 50 MB, video 200 MB, 20 images per request). */
export const UploadLimits = {
  photoBytes: 50 * MiB,
  videoBytes: 200 * MiB,
  filesPerRequest: 20,
} as const;

/**
 * Limits of every multipart body, whatever the route: at most 20 files, 50 other fields, 100 parts,
 * 64 KiB per text field, and no file over 200 MB (the largest the spec allows, a video). A photo
 * route narrows the file size when it reads the parts:
 * `request.files({ limits: { fileSize: UploadLimits.photoBytes } })`.
 * Beyond a limit the part stream fails with 413 payload_too_large (http/errors.ts).
 */
export const MultipartLimits = {
  files: UploadLimits.filesPerRequest,
  fileSize: UploadLimits.videoBytes,
  fields: 50,
  fieldSize: 64 * 1024,
  parts: 100,
  headerPairs: 200,
} as const;

/**
 * Registers @fastify/multipart with those limits. Multipart bodies are streamed (never buffered
 * whole), and only routes with `config: { multipart: true }` take them: elsewhere a multipart body
 * answers 415 unsupported_media_type, as any other non-JSON body does.
 */
export const registerMultipart = async (app: FastifyInstance): Promise<void> => {
  await app.register(multipart, { limits: MultipartLimits, throwFileSizeLimit: true });
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart() && request.routeOptions.config?.multipart !== true) {
      throw new DomainError('unsupported_media_type', 'this operation takes a JSON body, not multipart/form-data');
    }
  });
};

/**
 * Errors the HTTP layer answers whatever the operation, documented on every route so the OpenAPI
 * document (and a fuzzer reading it) knows them: 431 (headers, URL included, over 16 KiB) on all;
 * 413 (over the body limit) and 415 (not JSON, or multipart where JSON is expected) on every
 * operation that takes a body.
 */
export const documentHttpErrors = (app: FastifyInstance): void => {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { body?: unknown; response?: Record<string, unknown> } | undefined;
    if (!schema?.response) return;
    for (const status of schema.body ? ['413', '415', '431'] : ['431']) {
      if (!(status in schema.response) && !(Number(status) in schema.response)) schema.response[status] = { $ref: 'ErrorEnvelope' };
    }
  });
};

/** Fastify's trustProxy from TRUST_PROXY: a hop count becomes "trust the nearest n proxies". */
export const fastifyTrustProxy = (value: boolean | number | string | undefined): { trustProxy?: boolean | string | ((address: string, hop: number) => boolean) } =>
  value === undefined ? {} : { trustProxy: typeof value === 'number' ? (_address: string, hop: number) => hop < value : value };

/** The HTTP limits of createHttpApp from the configuration (RATE_LIMIT_*, REQUEST_TIMEOUT_MS, HEADERS_TIMEOUT_MS). */
export const httpLimitsOf = (config: Config) => ({
  rateLimit: { perMinute: config.rateLimitPerMinute, plans: config.rateLimitPlans },
  requestTimeoutMs: config.requestTimeoutMs,
  headersTimeoutMs: config.headersTimeoutMs,
  ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
});

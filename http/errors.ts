import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ErrorCodes, StatusNames, type ErrorCode } from '../domain/errors.ts';
import type { ErrorEnvelope } from '../contracts/common.ts';
import { describeValidationErrors } from './validation.ts';
import { isWrongExpectedRevision } from '../infrastructure/event-store/port.ts';
import { unavailableError } from './unavailable.ts';

/** Turns anything thrown into the spec's envelope; one place for every route. */
export const envelope = (
  request: FastifyRequest,
  statusCode: number,
  message: string | string[],
  code: ErrorCode | undefined,
  extra: Record<string, unknown> = {},
): ErrorEnvelope => ({
  ...extra,
  statusCode,
  timestamp: new Date().toISOString(),
  path: request.url.split('?')[0],
  message,
  error: StatusNames[statusCode] ?? (statusCode >= 500 ? 'Internal Server Error' : 'Bad Request'),
  ...(code ? { code } : {}),
});

export const sendError = (reply: FastifyReply, error: DomainError): FastifyReply => {
  if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
  return reply
    .code(error.statusCode)
    .send(envelope(reply.request, error.statusCode, error.details ?? error.message, error.code, error.extra));
};

/** Fastify's own errors (body parsing, content type, size) mapped to our codes. */
const frameworkCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation_failed',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
  // @fastify/multipart (limits in http/limits.ts)
  FST_PARTS_LIMIT: 'payload_too_large',
  FST_FILES_LIMIT: 'payload_too_large',
  FST_FIELDS_LIMIT: 'payload_too_large',
  FST_REQ_FILE_TOO_LARGE: 'payload_too_large',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'unsupported_media_type',
  FST_INVALID_JSON_FIELD_ERROR: 'validation_failed',
  FST_PROTO_VIOLATION: 'validation_failed',
  FST_MP_PREMATURE_CLOSE: 'validation_failed',
};

const codeForStatus = (status: number): ErrorCode | undefined =>
  (Object.entries(ErrorCodes).find(([, value]) => value === status)?.[0] as ErrorCode | undefined) ?? undefined;

/**
 * `allowedMethods` names the methods a path has (http/method-not-allowed.ts): a request on a
 * known path with another method is answered 405 `method_not_allowed` with `Allow`, not 404.
 */
export const registerErrorHandling = (app: FastifyInstance, allowedMethods?: (url: string) => string[]): void => {
  app.setErrorHandler((error: FastifyError | DomainError, request, reply) => {
    if (error instanceof DomainError) return sendError(reply, error);
    // A concurrency conflict no handler turned into a business answer: 409, never a 500.
    if (isWrongExpectedRevision(error)) return sendError(reply, new DomainError('conflict', 'the resource was changed concurrently; try again'));
    if (error.validation) {
      return reply
        .code(400)
        .send(envelope(request, 400, describeValidationErrors(error.validation as never, error.validationContext), 'validation_failed'));
    }
    const mapped = error.code ? frameworkCodes[error.code] : undefined;
    if (mapped) {
      const status = ErrorCodes[mapped];
      const message = mapped === 'invalid_json' ? `body is not valid JSON: ${error.message}` : error.message;
      return reply.code(status).send(envelope(request, status, message, mapped));
    }
    if (error instanceof SyntaxError) {
      return reply.code(400).send(envelope(request, 400, `body is not valid JSON: ${error.message}`, 'invalid_json'));
    }
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    // A database out of reach or a full disk: 503 with Retry-After, the client's cue to try again.
    const unavailable = status === 500 ? unavailableError(error) : undefined;
    if (unavailable) {
      request.log.warn({ err: error, code: unavailable.code }, 'storage unavailable');
      return sendError(reply, unavailable);
    }
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return reply.code(status).send(envelope(request, status, 'internal server error', 'internal_error'));
    }
    return reply.code(status).send(envelope(request, status, error.message, codeForStatus(status)));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    const allowed = allowedMethods?.(request.url) ?? [];
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('Allow', allowed.join(', '))
        .send(envelope(request, 405, `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, 'method_not_allowed'));
    }
    return reply.code(404).send(envelope(request, 404, `no route ${request.method} ${path}`, 'route_not_found'));
  });
};

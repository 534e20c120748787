/**
 * Every error the API can answer with, in one place: a stable machine-readable `code`
 * (the contract clients branch on), its HTTP status, and the status name used as `error`
 * in the envelope. Messages are for developers and may change; codes may not.
 *
 * The domain throws DomainError with one of these codes; the HTTP layer turns it into the
 * spec's envelope. Nothing here does I/O.
 */
export const ErrorCodes = {
  validation_failed: 400,
  invalid_json: 400,
  upload_quota_exceeded: 400,
  image_empty: 400,
  image_truncated: 400,
  image_corrupt: 400,
  image_too_many_pixels: 400,
  image_polyglot: 400,
  pet_has_no_photos: 400,
  pet_has_no_video: 400,
  image_not_of_pet: 400,
  unknown_feature: 400,
  webhook_url_not_allowed: 400,
  invalid_media: 400,
  video_duration_invalid: 400,
  video_too_complex: 400,
  account_inactive: 401,
  missing_api_key: 403,
  invalid_api_key: 403,
  forbidden: 403,
  admin_only: 403,
  feature_not_enabled: 403,
  capability_disabled: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  duplicate_favourite: 409,
  public_request_pending: 409,
  conflict: 409,
  webhook_limit_reached: 409,
  webhook_disabled: 409,
  delivery_pending: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  weight_required: 422,
  analysis_not_possible: 422,
  rate_limited: 429,
  pet_upload_rate_exceeded: 429,
  internal_error: 500,
  analysis_unavailable: 503,
  not_ready: 503,
  media_busy: 503,
  consistency_timeout: 503,
  store_unavailable: 503,
  storage_full: 503,
  upstream_unavailable: 503,
  upstream_failed: 502,
  upstream_timeout: 504,
  request_timeout: 408,
  malformed_request: 400,
  headers_too_large: 431,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export const StatusNames: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export class DomainError extends Error {
  readonly code: ErrorCode;
  /** One entry per problem for validation errors, otherwise the message. */
  readonly details: string[] | undefined;
  /** Extra fields the envelope carries for this error (e.g. limits of a rate rule). */
  readonly extra: Record<string, unknown> | undefined;
  /** When to ask again, in seconds: answered as the Retry-After header (503, 429). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: string[]; extra?: Record<string, unknown>; retryAfterSeconds?: number } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get statusCode(): number {
    return ErrorCodes[this.code];
  }
}

export const isDomainError = (error: unknown): error is DomainError => error instanceof DomainError;

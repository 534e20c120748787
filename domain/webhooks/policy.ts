/** The webhook limits of the spec (Limits: webhook endpoints, delivery attempts). */
export const MAX_ENDPOINTS_PER_ACCOUNT = 5;
/** Attempts per event (first try plus two retries); a redelivery starts a new round. */
export const MAX_ATTEMPTS = 3;
/** Backoff before retry n (1-based): BACKOFF_BASE_MS × 2^(n-1) plus a small jitter. */
export const BACKOFF_BASE_MS = 1000;
export const MAX_BACKOFF_JITTER_MS = 250;
/** Consecutive failed attempts (across deliveries) after which an endpoint is disabled for good. */
export const MAX_CONSECUTIVE_FAILURES = 10;
/** The receiver must answer within this time. */
export const DELIVERY_TIMEOUT_MS = 5000;
/**
 * A registry slot whose endpoint stream never appeared (the writer died between the two appends)
 * is given back once it is this old; younger ones may still be completing and count as taken.
 */
export const STALE_SLOT_MS = 30_000;

export const backoffMs = (attemptInRound: number, jitterMs: number): number =>
  BACKOFF_BASE_MS * 2 ** (attemptInRound - 1) + Math.max(0, Math.min(MAX_BACKOFF_JITTER_MS, jitterMs));

import { LRUCache } from 'lru-cache';
import { DomainError } from '../domain/errors.ts';

export type AuthFailureSettings = {
  /** Failed authentications (unknown key, wrong admin key) allowed per client address per window. */
  maxFailures: number;
  windowMs: number;
  /** Addresses tracked per process (least recently failing ones go first). */
  maxAddresses?: number;
};

export const DEFAULT_AUTH_FAILURES: AuthFailureSettings = { maxFailures: 30, windowMs: 60_000 };

type Window = { failures: number; startedAt: number };

/**
 * Failed authentication budget per client address, in process memory (lru-cache, bounded): every
 * refused key (unknown, revoked, wrong admin key) spends one; once an address has spent its budget
 * in the current window, keys it presents are no longer looked up or compared and the answer is
 * 429 `rate_limited` with Retry-After until the window ends. Guessing keys then costs time, and
 * the lookups it can cause are bounded.
 *
 * The budget is per address, never per key, so nobody can lock a valid key out by failing with it
 * from elsewhere; and a key this process already knows as valid (auth-cache.ts `knownGood`) is
 * still served from an exhausted address, so users behind the same NAT as a guesser keep working.
 */
export const authFailureLimiter = (settings: AuthFailureSettings = DEFAULT_AUTH_FAILURES, now: () => number = Date.now) => {
  const windows = new LRUCache<string, Window>({ max: settings.maxAddresses ?? 100_000 });
  const current = (address: string): Window | undefined => {
    const window = windows.get(address);
    if (window && now() - window.startedAt >= settings.windowMs) {
      windows.delete(address);
      return undefined;
    }
    return window;
  };
  return {
    /** Throws 429 if the address has no failed attempts left in this window. */
    check(address: string): void {
      const window = current(address);
      if (!window || window.failures < settings.maxFailures) return;
      const retryAfterSeconds = Math.ceil((window.startedAt + settings.windowMs - now()) / 1000);
      throw new DomainError('rate_limited', `too many failed authentication attempts from this address; retry in ${retryAfterSeconds} s`, {
        extra: { limit: settings.maxFailures, retry_after_seconds: retryAfterSeconds },
        retryAfterSeconds,
      });
    },
    /** Spends one failed attempt of the address. */
    fail(address: string): void {
      const window = current(address);
      if (window) window.failures += 1;
      else windows.set(address, { failures: 1, startedAt: now() });
    },
  };
};

export type AuthFailureLimiter = ReturnType<typeof authFailureLimiter>;

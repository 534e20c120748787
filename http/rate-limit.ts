import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { DomainError } from '../domain/errors.ts';

export type RateLimitSettings = {
  /** Requests per minute per API key for accounts without a (known) plan. */
  perMinute: number;
  /** Requests per minute per API key by account plan (RATE_LIMIT_PLANS). */
  plans: Record<string, number>;
};

export const DEFAULT_RATE_LIMIT: RateLimitSettings = { perMinute: 6000, plans: {} };

/** The limit of an account's plan; a plan the settings do not name gets the default. */
export const limitForPlan = (settings: RateLimitSettings, plan: string | null | undefined): number =>
  plan && Object.hasOwn(settings.plans, plan) ? (settings.plans[plan] as number) : settings.perMinute;

/** Whose budget a request spends: its API key; keyless requests (health, docs) count per client address. */
const budgetOf = (request: FastifyRequest): string => (request.account ? `key:${request.account.keyId}` : `ip:${request.ip}`);

/**
 * Request rate limits per API key over a one-minute window (@fastify/rate-limit, in-process
 * counters: with several replicas each counts its own share). The check runs as a route-level
 * onRequest hook, after the authentication hook, so it knows the account and its plan; a request
 * refused by authentication never reaches it. Answers carry RateLimit-Limit, RateLimit-Remaining
 * and RateLimit-Reset; a refusal is 429 `rate_limited` with Retry-After (seconds). The admin key
 * (operators, provisioning) is not limited.
 */
export const registerRateLimit = async (app: FastifyInstance, settings: RateLimitSettings): Promise<void> => {
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: 60_000,
    max: (request) => (request.account ? limitForPlan(settings, request.account.plan) : settings.perMinute),
    keyGenerator: budgetOf,
    allowList: (request) => request.isAdmin,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) =>
      new DomainError('rate_limited', `rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`, {
        extra: { limit: context.max, retry_after_seconds: Math.ceil(context.ttl / 1000) },
      }),
  });
};

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { type Feature } from '../domain/accounts/features.ts';
import { recentLoss } from './recent-loss.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { AccountDoc } from '../contracts/read-models.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { secretsEqual, sha256 } from '../infrastructure/ids.ts';
import type { AccountPositions, WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { Config } from '../infrastructure/config.ts';
import type { Adapters } from '../infrastructure/adapters.ts';
import { keyResolver } from './auth-cache.ts';
import { presentedApiKey } from './api-key.ts';
import { authFailureLimiter, DEFAULT_AUTH_FAILURES, type AuthFailureSettings } from './auth-failures.ts';

export type AuthenticatedAccount = {
  id: string;
  keyId: string;
  email: string | null;
  features: ReadonlySet<string>;
  switchedOff: ReadonlySet<string>;
  /** Names the account's request rate limit (RATE_LIMIT_PLANS); null: the default limit. */
  plan: string | null;
};

/**
 * The account's write positions as authentication read them for this request, with the store they
 * came from: read-your-writes reuses them instead of a second lookup when it reads the same store
 * and, if that store leases its lookups (`leaseMs` > 0: maybe from a lookup made before this
 * request, write-positions.ts), only for a read that depends on leased changes alone.
 */
export type RequestWritePositions = AccountPositions & { from: WritePositions };

/** Who may call a route: an account key (default), the admin key, or anyone. */
export type RouteAuth = 'account' | 'admin' | 'public';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The feature (and capability) the account needs for this route. */
    feature?: Feature;
  }
  interface FastifyRequest {
    account: AuthenticatedAccount | null;
    isAdmin: boolean;
    writePositions: RequestWritePositions | null;
  }
}

/** Routes added by plugins we do not configure one by one (the docs UI). */
const PUBLIC_PREFIXES = ['/v1/docs'];

export type AuthDependencies = {
  readStore: ReadStore;
  eventStore: EventStore;
  adminApiKey: string | undefined;
  /**
   * Per account, the position of its last change (keys, deactivation, features, capabilities,
   * plan): a request waits until the accounts projection has passed it, so such a change holds
   * from the next request on; it also tells when a cached key and account are stale (auth-cache.ts).
   * Without it keys are not cached.
   */
  writePositions?: WritePositions;
  /** How long a request of an account with a fresh change waits for the accounts projection. */
  catchUpMs?: number;
  /** Keys cached per process, and how long one is trusted without re-reading (auth-cache.ts). */
  cache?: { maxEntries?: number; maxAgeMs?: number };
  /** Failed authentications allowed per client address (auth-failures.ts). */
  failures?: AuthFailureSettings;
};

/** The authentication dependencies of a process, from its configuration and adapters. */
export const authDependenciesOf = (
  config: Pick<Config, 'adminApiKey'> & Partial<Pick<Config, 'authFailuresPerMinute'>>,
  adapters: Pick<Adapters, 'readStore' | 'eventStore' | 'writePositions'>,
): AuthDependencies => ({
  readStore: adapters.readStore,
  eventStore: adapters.eventStore,
  adminApiKey: config.adminApiKey,
  writePositions: adapters.writePositions,
  ...(config.authFailuresPerMinute === undefined ? {} : { failures: { maxFailures: config.authFailuresPerMinute, windowMs: 60_000 } }),
});

/**
 * An account document's features and switched-off capabilities as sets, made once per document
 * the key cache holds rather than on every request (a changed account is a new document).
 */
const accessSets = new WeakMap<AccountDoc, { features: ReadonlySet<string>; switchedOff: ReadonlySet<string> }>();
const accessOf = (account: AccountDoc) => {
  let sets = accessSets.get(account);
  if (!sets) {
    sets = { features: new Set(account.features), switchedOff: new Set(account.switched_off) };
    accessSets.set(account, sets);
  }
  return sets;
};

/**
 * The one place that decides who may do what:
 * - missing key → 403 missing_api_key; unknown key → 403 invalid_api_key;
 * - key of an inactive account → 401 account_inactive;
 * - the admin key is accepted on admin routes only; an account key there → 403 admin_only;
 * - a route's feature the account lacks → 403 feature_not_enabled; switched off → 403 capability_disabled;
 * - the account's latest change not confirmed in time → 503 consistency_timeout (never a stale decision);
 * - an address that used up its failed attempts → 429 rate_limited (auth-failures.ts).
 * Ownership of a resource (another account's vote, image, pet → 403) is a business rule, decided
 * by the deciders and queries with the account id this hook puts on the request.
 */
export const registerAuth = (app: FastifyInstance, deps: AuthDependencies): void => {
  const catchUpMs = deps.catchUpMs ?? 1000;
  app.decorateRequest('account', null);
  app.decorateRequest('isAdmin', false);
  app.decorateRequest('writePositions', null);
  const keys = keyResolver({ ...deps.cache, readStore: deps.readStore, writePositions: deps.writePositions, catchUpMs });
  const failures = authFailureLimiter(deps.failures ?? DEFAULT_AUTH_FAILURES);
  const lostWritesLately = recentLoss(deps.readStore);
  /** An unknown key while the read store makes up for lost writes may be one it lost: 503, not 403. */
  const unknownKey = (request: FastifyRequest): never => {
    if (lostWritesLately()) {
      failures.fail(request.ip);
      throw new DomainError('store_unavailable', 'the read models are being repaired after a storage fault; try again shortly', { retryAfterSeconds: 2 });
    }
    return refuse(request, new DomainError('invalid_api_key', 'invalid api key'));
  };
  /** A refused key spends one attempt of the caller's address. */
  const refuse = (request: FastifyRequest, error: DomainError): never => {
    failures.fail(request.ip);
    throw error;
  };

  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const config = request.routeOptions.config ?? {};
    const url = request.routeOptions.url;
    // Unknown routes fall through to the 404 handler; the docs UI's own routes are public.
    if (!url || PUBLIC_PREFIXES.some((prefix) => url.startsWith(prefix))) return;
    const auth: RouteAuth = config.auth ?? 'account';
    if (auth === 'public') return;
    const key = presentedApiKey(request);
    if (!key) throw new DomainError('missing_api_key', 'missing x-api-key header (or api_key query parameter)');
    const hash = sha256(key);
    if (!keys.knownGood(hash)) failures.check(request.ip);
    if (key.length > 200) refuse(request, new DomainError('invalid_api_key', 'invalid api key'));

    if (auth === 'admin') {
      if (deps.adminApiKey && secretsEqual(key, deps.adminApiKey)) {
        request.isAdmin = true;
        return;
      }
      // An account key on an admin route is a mistake, not a guess; anything else spends an attempt.
      if (keys.knownGood(hash)) throw new DomainError('admin_only', 'this operation needs the admin key');
      refuse(request, new DomainError('admin_only', 'this operation needs the admin key'));
    }

    const found = await keys.resolve(hash);
    if (!found) return unknownKey(request);
    if (found.apiKey.revoked) return refuse(request, new DomainError('invalid_api_key', 'invalid api key'));
    const { apiKey, account } = found;
    if (deps.writePositions) request.writePositions = { ...found.positions, from: deps.writePositions };
    if (!account) return unknownKey(request);
    if (!account.active) throw new DomainError('account_inactive', 'this api key belongs to an inactive account');
    const { features, switchedOff } = accessOf(account);
    if (config.feature) {
      if (!features.has(config.feature)) {
        throw new DomainError('feature_not_enabled', `feature '${config.feature}' is not enabled on this account`, {
          extra: { feature: config.feature },
        });
      }
      if (switchedOff.has(config.feature)) {
        throw new DomainError('capability_disabled', `capability '${config.feature}' is switched off on this account`, {
          extra: { capability: config.feature },
        });
      }
    }
    request.account = { id: account.account_id, keyId: apiKey.key_id, email: account.email, features, switchedOff, plan: account.plan ?? null };
  };

  app.addHook('onRequest', async (request) => {
    await authenticate(request);
  });
};

/** The authenticated account of a route that requires one. */
export const accountOf = (request: FastifyRequest): AuthenticatedAccount => {
  if (!request.account) throw new DomainError('missing_api_key', 'missing x-api-key header');
  return request.account;
};

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import { type Feature } from '../domain/accounts/features.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import { secretsEqual, sha256 } from '../infrastructure/ids.ts';
import type { AccountPositions, WritePositions } from '../infrastructure/consistency/write-positions.ts';
import type { Config } from '../infrastructure/config.ts';
import type { Adapters } from '../infrastructure/adapters.ts';
import { keyResolver } from './auth-cache.ts';
import { presentedApiKey } from './api-key.ts';

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
 * came from: read-your-writes reuses them instead of a second lookup when it reads the same store.
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
  /** How long an unknown key, or an account with a fresh change, waits for the accounts projection. */
  catchUpMs?: number;
  /** Keys cached per process, and how long one is trusted without re-reading (auth-cache.ts). */
  cache?: { maxEntries?: number; maxAgeMs?: number };
};

/** The authentication dependencies of a process, from its configuration and adapters. */
export const authDependenciesOf = (
  config: Pick<Config, 'adminApiKey'>,
  adapters: Pick<Adapters, 'readStore' | 'eventStore' | 'writePositions'>,
): AuthDependencies => ({
  readStore: adapters.readStore,
  eventStore: adapters.eventStore,
  adminApiKey: config.adminApiKey,
  writePositions: adapters.writePositions,
});

/**
 * The one place that decides who may do what:
 * - missing key → 403 missing_api_key; unknown key → 403 invalid_api_key;
 * - key of an inactive account → 401 account_inactive;
 * - the admin key is accepted on admin routes only; an account key there → 403 admin_only;
 * - a route's feature the account lacks → 403 feature_not_enabled; switched off → 403 capability_disabled.
 * Ownership of a resource (another account's vote, image, pet → 403) is a business rule, decided
 * by the deciders and queries with the account id this hook puts on the request.
 */
export const registerAuth = (app: FastifyInstance, deps: AuthDependencies): void => {
  const catchUpMs = deps.catchUpMs ?? 1000;
  app.decorateRequest('account', null);
  app.decorateRequest('isAdmin', false);
  app.decorateRequest('writePositions', null);
  const keys = keyResolver({ ...deps.cache, readStore: deps.readStore, eventStore: deps.eventStore, writePositions: deps.writePositions, catchUpMs });

  const authenticate = async (request: FastifyRequest): Promise<void> => {
    const config = request.routeOptions.config ?? {};
    const url = request.routeOptions.url;
    // Unknown routes fall through to the 404 handler; the docs UI's own routes are public.
    if (!url || PUBLIC_PREFIXES.some((prefix) => url.startsWith(prefix))) return;
    const auth: RouteAuth = config.auth ?? 'account';
    if (auth === 'public') return;
    const key = presentedApiKey(request);
    if (!key) throw new DomainError('missing_api_key', 'missing x-api-key header (or api_key query parameter)');
    if (key.length > 200) throw new DomainError('invalid_api_key', 'invalid api key');

    if (auth === 'admin') {
      if (deps.adminApiKey && secretsEqual(key, deps.adminApiKey)) {
        request.isAdmin = true;
        return;
      }
      throw new DomainError('admin_only', 'this operation needs the admin key');
    }

    const found = await keys.resolve(sha256(key));
    if (!found || found.apiKey.revoked) throw new DomainError('invalid_api_key', 'invalid api key');
    const { apiKey, account } = found;
    if (deps.writePositions) request.writePositions = { ...found.positions, from: deps.writePositions };
    if (!account) throw new DomainError('invalid_api_key', 'invalid api key');
    if (!account.active) throw new DomainError('account_inactive', 'this api key belongs to an inactive account');
    const features = new Set(account.features);
    const switchedOff = new Set(account.switched_off);
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

import { Collections, type AccountDoc, type ApiKeyDoc } from '../contracts/read-models.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { DomainError } from '../domain/errors.ts';
import { NO_POSITIONS, type AccountPositions, type WritePositions } from '../infrastructure/consistency/write-positions.ts';
import { freshReads } from '../infrastructure/coalesce.ts';

/** The projection that keeps accounts and API keys (what authentication reads). */
const ACCOUNTS = 'accounts';

/** A key as authentication found it, with the account's write positions read for this request. */
export type ResolvedKey = { apiKey: ApiKeyDoc; account: AccountDoc | null; positions: AccountPositions };

type Entry = {
  apiKey: ApiKeyDoc;
  account: AccountDoc | null;
  /** An `accounts` checkpoint reached before the documents were read (null: none known). */
  seenAt: bigint | null;
  loadedAt: number;
};

export type KeyResolverOptions = {
  readStore: ReadStore;
  /** Without it nothing tells a cached key from a stale one: every request reads the documents. */
  writePositions?: WritePositions;
  /** How long a request of an account with a fresh change waits for the accounts projection. */
  catchUpMs: number;
  /** Keys kept per process (least recently used ones go first). */
  maxEntries?: number;
  /**
   * How long an entry is trusted without re-reading it, as a safety net for account changes that
   * were not recorded in the write positions (the admin CLI of an all-in-one, whose positions live
   * in the service's memory). Recorded changes are seen on the next request whatever this is.
   */
  maxAgeMs?: number;
  now?: () => number;
};

export const AUTH_CACHE_DEFAULTS = { maxEntries: 10_000, maxAgeMs: 1_000 } as const;

/** True if documents read once `seenAt` was reached already reflect the change at `lastChange`. */
export const reflects = (seenAt: bigint | null, lastChange: bigint | null): boolean =>
  lastChange === null || (seenAt !== null && lastChange <= seenAt);

/** A Map kept in use order: the first key is the least recently used. */
const lru = <V>(maxEntries: number) => {
  const map = new Map<string, V>();
  return {
    get(key: string): V | undefined {
      const value = map.get(key);
      if (value === undefined) return undefined;
      map.delete(key);
      map.set(key, value);
      return value;
    },
    set(key: string, value: V): void {
      map.delete(key);
      map.set(key, value);
      if (map.size > maxEntries) map.delete(map.keys().next().value as string);
    },
    delete: (key: string) => map.delete(key),
    get size() {
      return map.size;
    },
  };
};

/**
 * Finds API keys and their accounts with one shared lookup per request: the account's write
 * positions. Per process, a key hash maps to its key and account documents and the `accounts`
 * checkpoint known to be reached before they were read. A cached entry answers only while the
 * account's last recorded change is at or below that checkpoint; otherwise the request waits
 * (bounded) for the accounts projection to pass the change and reads both documents again, so a
 * deactivation, a revoked key or a feature, capability or plan change holds from the next request
 * on, here and on every replica that shares the write positions.
 *
 * If the projection does not pass the change in time, the request is refused with 503
 * `consistency_timeout` (and Retry-After): the documents at hand may predate a deactivation or a
 * revocation, so they are never used to decide (fail closed).
 *
 * Unknown keys are answered from the key read model alone, never remembered, and never make the
 * resolver read the event store or wait: an unauthenticated caller costs one document lookup.
 * A key works at once anyway, because the operations that issue keys answer only once the
 * accounts projection has it (command-api/routes/admin/accounts.ts).
 */
export const keyResolver = (options: KeyResolverOptions) => {
  const maxAgeMs = options.maxAgeMs ?? AUTH_CACHE_DEFAULTS.maxAgeMs;
  const now = options.now ?? Date.now;
  const caching = options.writePositions !== undefined;
  const cache = lru<Entry>(options.maxEntries ?? AUTH_CACHE_DEFAULTS.maxEntries);
  const keys = () => options.readStore.collection<ApiKeyDoc & { _id: string }>(Collections.apiKeys);
  const accounts = () => options.readStore.collection<AccountDoc & { _id: string }>(Collections.accounts);

  /** Leased (write-positions.ts): an account change is answered only once no lookup that missed it is still used. */
  const positionsOf = async (accountId: string): Promise<AccountPositions> =>
    (await options.writePositions?.leasedPositions(accountId)) ?? NO_POSITIONS;

  /** Reads the key and its account; `reached`: a checkpoint already known reached (saves a lookup). */
  const read = async (hash: string, reached?: bigint): Promise<Entry | null> => {
    const seenAt = reached ?? (caching ? await options.readStore.getCheckpoint(ACCOUNTS) : null);
    const apiKey = await keys().get(hash);
    if (!apiKey) return null;
    const account = await accounts().get(apiKey.account_id);
    return { apiKey, account, seenAt, loadedAt: now() };
  };
  /**
   * A key's documents read again (a miss or an expired entry) once for all the requests of that key
   * that arrive meanwhile, instead of once each: every one of them gets a read that started after
   * it asked (see coalesce.ts).
   */
  const reread = freshReads((hash: string) => read(hash));

  /**
   * Waits (bounded) for the accounts projection to pass `position`, then reads again. Not reaching
   * it is a refusal: what the read models hold may predate the change.
   */
  const readAfter = async (hash: string, position: bigint): Promise<Entry | null> => {
    const reached = await options.readStore.waitForCheckpoints([ACCOUNTS], position, options.catchUpMs);
    if (!reached) {
      throw new DomainError('consistency_timeout', 'the latest change to this account could not be confirmed yet; retry shortly', {
        retryAfterSeconds: 1,
      });
    }
    return read(hash, position);
  };

  const answer = (hash: string, entry: Entry | null, positions: AccountPositions): ResolvedKey | null => {
    if (!entry) {
      cache.delete(hash);
      return null;
    }
    // A key without its account is a moment of a projection: not kept.
    if (caching && entry.account) cache.set(hash, entry);
    else cache.delete(hash);
    return { apiKey: entry.apiKey, account: entry.account, positions };
  };

  /** The key with this hash and its account, or null for a key nobody issued. */
  const resolve = async (hash: string): Promise<ResolvedKey | null> => {
    const cached = cache.get(hash);
    if (cached && now() - cached.loadedAt < maxAgeMs) {
      // A key never moves to another account: the cached account id names whose positions to read.
      const positions = await positionsOf(cached.apiKey.account_id);
      if (reflects(cached.seenAt, positions.lastAccountChange)) return { apiKey: cached.apiKey, account: cached.account, positions };
      return answer(hash, await readAfter(hash, positions.lastAccountChange as bigint), positions);
    }
    let entry = await reread(hash);
    if (!entry) return answer(hash, null, NO_POSITIONS);
    const positions = await positionsOf(entry.apiKey.account_id);
    if (!reflects(entry.seenAt, positions.lastAccountChange)) entry = await readAfter(hash, positions.lastAccountChange as bigint);
    return answer(hash, entry, positions);
  };

  /**
   * True if this process has recently resolved this key to an active account (no lookup): such a
   * key is served even from an address that exhausted its failed-authentication budget.
   */
  const knownGood = (hash: string): boolean => {
    const entry = cache.get(hash);
    return entry !== undefined && !entry.apiKey.revoked && entry.account?.active === true;
  };

  return {
    resolve,
    knownGood,
    /** Entries held (tests). */
    get size() {
      return cache.size;
    },
  };
};

export type KeyResolver = ReturnType<typeof keyResolver>;

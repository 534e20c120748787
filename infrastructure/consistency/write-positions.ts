/**
 * Read-your-writes: the command side records the global position of each account's last write;
 * the query side waits (bounded) until the projections have passed it before answering that
 * account. This in-memory adapter serves the all-in-one process; the separate-process topology
 * needs one both sides can reach (see the production adapters).
 *
 * Two positions are kept per account, read together in one lookup:
 * - `lastWrite`: the last write of any kind (a vote, a favourite, a webhook, …): what a query
 *   waits for before answering the account;
 * - `lastAccountChange`: the last event on the account's own stream (keys issued or revoked,
 *   deactivation, features, capabilities, plan): what authentication waits for, and what tells a
 *   cached key and account apart from a stale one. Every account change is also a write;
 * - `byKind`: the last write of each kind recorded with one (contracts/write-kinds.ts), for the
 *   reads that depend on some kinds of write only (absent until a write with a kind is recorded).
 *
 * The lease (shared stores): a lookup is a round trip, and most requests would make one only to
 * learn that nothing changed — authentication asking whether the key was revoked, a breed list
 * asking whether the caller touched a public image. Those changes are rare, so they pay instead:
 * a write of a leased change (an account change, a write of LEASED_KINDS) is answered only
 * POSITIONS_LEASE_MS + LEASE_MARGIN_MS after it is recorded, and a read that depends on leased
 * changes alone may take positions from a lookup that started less than POSITIONS_LEASE_MS ago
 * (`leasedPositions`). Any such lookup that missed the write started before it was recorded, so
 * it has expired by the time the write is answered: once the caller has the answer, every process
 * sees the change on its next request, as with a lookup per request. Every other read (the caller's
 * votes, images, …) looks up afresh (`positions`).
 */
export type AccountPositions = { lastWrite: bigint | null; lastAccountChange: bigint | null; byKind?: Readonly<Record<string, bigint>> };

/** How long a lookup's positions serve reads of leased changes, from when the lookup started. */
export const POSITIONS_LEASE_MS = 250;
/** What a leased write waits beyond the lease: timers that fire early, clocks read at different moments. */
export const LEASE_MARGIN_MS = 25;

export interface WritePositions {
  /**
   * Remembers a write of the account at `position`, and of its `kind` when given (never moves
   * backwards). A kind of LEASED_KINDS resolves only once the lease has run out (`leaseMs`).
   */
  record(accountId: string, position: bigint, kind?: string): Promise<void>;
  /**
   * Remembers a change to the account itself at `position`: both positions move (never
   * backwards). Leased: resolves only once the lease has run out (`leaseMs`).
   */
  recordAccountChange(accountId: string, position: bigint): Promise<void>;
  /** The account's positions from a lookup that starts after this call (null: none recorded). */
  positions(accountId: string): Promise<AccountPositions>;
  /**
   * The account's positions for a read that depends on leased changes only (the account's own
   * changes, LEASED_KINDS): possibly those of a lookup started up to `leaseMs` ago.
   */
  leasedPositions(accountId: string): Promise<AccountPositions>;
  /** How old a lookup `leasedPositions` answers from may be: 0 where every lookup is free (in memory). */
  readonly leaseMs: number;
  lastWrite(accountId: string): Promise<bigint | null>;
}

export const NO_POSITIONS: AccountPositions = Object.freeze({ lastWrite: null, lastAccountChange: null });

const highest = (current: bigint | null, position: bigint): bigint => (current === null || current < position ? position : current);

export const inMemoryWritePositions = (): WritePositions => {
  const byAccount = new Map<string, AccountPositions>();
  const positions = async (accountId: string): Promise<AccountPositions> => byAccount.get(accountId) ?? NO_POSITIONS;
  return {
    async record(accountId, position, kind) {
      const current = byAccount.get(accountId) ?? NO_POSITIONS;
      const byKind = kind === undefined ? current.byKind : { ...current.byKind, [kind]: highest(current.byKind?.[kind] ?? null, position) };
      byAccount.set(accountId, { ...current, lastWrite: highest(current.lastWrite, position), ...(byKind ? { byKind } : {}) });
    },
    async recordAccountChange(accountId, position) {
      const current = byAccount.get(accountId) ?? NO_POSITIONS;
      byAccount.set(accountId, { ...current, lastWrite: highest(current.lastWrite, position), lastAccountChange: highest(current.lastAccountChange, position) });
    },
    positions,
    leasedPositions: positions,
    leaseMs: 0,
    async lastWrite(accountId) {
      return (await positions(accountId)).lastWrite;
    },
  };
};

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
 */
export type AccountPositions = { lastWrite: bigint | null; lastAccountChange: bigint | null; byKind?: Readonly<Record<string, bigint>> };

export interface WritePositions {
  /** Remembers a write of the account at `position`, and of its `kind` when given (never moves backwards). */
  record(accountId: string, position: bigint, kind?: string): Promise<void>;
  /** Remembers a change to the account itself at `position`: both positions move (never backwards). */
  recordAccountChange(accountId: string, position: bigint): Promise<void>;
  /** Both positions of the account in one lookup (null: none recorded). */
  positions(accountId: string): Promise<AccountPositions>;
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
    async lastWrite(accountId) {
      return (await positions(accountId)).lastWrite;
    },
  };
};

/**
 * Read-your-writes: the command side records the global position of each account's last write;
 * the query side waits (bounded) until the projections have passed it before answering that
 * account. This in-memory adapter serves the all-in-one process; the separate-process topology
 * needs one both sides can reach (see the production adapters).
 */
export interface WritePositions {
  record(accountId: string, position: bigint): Promise<void>;
  lastWrite(accountId: string): Promise<bigint | null>;
}

export const inMemoryWritePositions = (): WritePositions => {
  const positions = new Map<string, bigint>();
  return {
    async record(accountId, position) {
      const previous = positions.get(accountId);
      if (previous === undefined || previous < position) positions.set(accountId, position);
    },
    async lastWrite(accountId) {
      return positions.get(accountId) ?? null;
    },
  };
};

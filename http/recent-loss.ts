import type { ReadStore } from '../infrastructure/read-store/port.ts';

/** How long after a store reported lost writes an unknown key is taken for one it may have lost. */
export const LOSS_GRACE_MS = 10_000;

/**
 * Whether the read store reported writes it had acknowledged as lost (ReadStore.rollbacks moved:
 * the embedded store's COMMIT refused on a full disk, a MongoDB server back without its last
 * writes) within the last `graceMs`. The projections apply those writes again within a second or
 * two (projectors/runner.ts); until then a key issued just before is missing from the read model,
 * and authentication must not call it invalid — the client would take its key for revoked.
 * The count is read when asked: a change is dated from the first time it is seen. No store (an
 * app without one, in tests): never.
 */
export const recentLoss = (readStore: Pick<ReadStore, 'rollbacks'> | undefined, { graceMs = LOSS_GRACE_MS, now = Date.now } = {}) => {
  let seen = readStore?.rollbacks ?? 0;
  let changedAt = Number.NEGATIVE_INFINITY;
  return (): boolean => {
    const count = readStore?.rollbacks ?? 0;
    if (count !== seen) {
      seen = count;
      changedAt = now();
    }
    return now() - changedAt < graceMs;
  };
};

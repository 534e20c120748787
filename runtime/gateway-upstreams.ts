/** How long a replica that refused a connection is left out of the rotation. */
export const UPSTREAM_DOWN_MS = 2_000;

export type UpstreamPool = {
  /** The next replica, round-robin, skipping those recently found down (all of them down: plain round-robin). */
  pick: () => string;
  /** Leaves a replica out of the rotation for UPSTREAM_DOWN_MS. */
  markDown: (base: string) => void;
};

/**
 * The replicas of one API behind the gateway. A replica that refused a connection (killed,
 * restarting) is skipped for a moment, so the requests after the one that found it down go to
 * the others instead of failing too.
 */
export const upstreamPool = (bases: string[], now: () => number = Date.now): UpstreamPool => {
  const downUntil = new Map<string, number>();
  let next = 0;
  return {
    pick: () => {
      for (let tried = 0; tried < bases.length; tried++) {
        const base = bases[next++ % bases.length];
        if ((downUntil.get(base) ?? 0) <= now()) return base;
      }
      return bases[next++ % bases.length];
    },
    markDown: (base) => {
      downUntil.set(base, now() + UPSTREAM_DOWN_MS);
    },
  };
};

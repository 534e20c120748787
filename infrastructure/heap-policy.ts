import { getHeapStatistics } from 'node:v8';

/**
 * The V8 heap policy of the service's long-running processes (the all-in-one and each production
 * process), so that a process's resident memory stays within 512 MiB whatever the backlog or load
 * instead of following V8's defaults, which size the old generation from the machine's memory
 * (≈ 4 GiB on a 24 GiB machine) and let garbage pile up between major collections at a high
 * allocation rate (docs/performance.md#memory-item-7).
 *
 * The old generation's cap is what a busy process keeps alive (≈ 100–130 MiB after major
 * collections while the dispatcher drains a 150,000-delivery backlog) with a margin, plus what
 * upload bodies being received and decoded may hold at once (UPLOAD_MEMORY_BUDGET_MB, 160 MiB by
 * default): 160 + 160 = 320 MiB. Since JSON upload bodies are decoded as they stream in
 * (command-api/uploads/json-upload-body.ts) little of that budget is on the heap — Buffers hold it —
 * so the cap could come down; it stays until measured against item 4's CPU per delivery. The young generation keeps V8's default (16 MiB semi-spaces).
 *
 * It is applied where the processes are started: `npm start` and the other `start:*` scripts
 * (package.json) and the Docker image (NODE_OPTIONS), and the same flags by the bench, the e2e
 * tests and the fault topology (`serviceNodeOptions`). Operators change it with NODE_OPTIONS: a flag
 * there comes after the policy's and wins (docs/operations.md#memory).
 */
export const HEAP_LIVE_MARGIN_MB = 160;

/** UPLOAD_MEMORY_BUDGET_MB's default (infrastructure/config.ts). */
export const DEFAULT_UPLOAD_MEMORY_BUDGET_MB = 160;

/** The old-generation cap (--max-old-space-size, MiB) a process whose uploads may hold `uploadBudgetMb` at once needs. */
export const maxOldSpaceMbFor = (uploadBudgetMb: number = DEFAULT_UPLOAD_MEMORY_BUDGET_MB): number => HEAP_LIVE_MARGIN_MB + uploadBudgetMb;

/** The node flags of the policy, as package.json's start scripts and the Dockerfile put them in NODE_OPTIONS. */
export const SERVICE_NODE_FLAGS: readonly string[] = [`--max-old-space-size=${maxOldSpaceMbFor()}`];

/**
 * NODE_OPTIONS for a service process started the way `npm start` starts it: the policy's flags
 * first, then whatever NODE_OPTIONS already holds (a later flag wins, so an operator's own setting
 * overrides the policy).
 */
export const serviceNodeOptions = (existing: string | undefined = process.env.NODE_OPTIONS): string =>
  [...SERVICE_NODE_FLAGS, existing?.trim() ?? ''].filter(Boolean).join(' ');

/** A process's old-generation cap in MiB, from V8's heap size limit (which adds the young generation's). */
export const heapLimitMb = (): number => Math.round(getHeapStatistics().heap_size_limit / (1024 * 1024));

/**
 * What a process says at start about its heap limit (`limitMb`: V8's heap_size_limit in MiB, old
 * and young generations): a warning when it is too small for the upload budget (a few concurrent
 * large uploads could exhaust the heap) or far above the policy (started without it: garbage may
 * take the process past 512 MiB), null when it fits. The young generation adds up to ≈ 48 MiB to
 * the old generation's cap in heap_size_limit; 256 MiB above the policy is taken as "no policy".
 */
export const heapPolicyWarning = (limitMb: number, uploadBudgetMb: number = DEFAULT_UPLOAD_MEMORY_BUDGET_MB): string | null => {
  const wanted = maxOldSpaceMbFor(uploadBudgetMb);
  if (limitMb < wanted) {
    return `the V8 heap limit (${limitMb} MiB) is below the ${wanted} MiB UPLOAD_MEMORY_BUDGET_MB=${uploadBudgetMb} needs: large uploads may exhaust it (set NODE_OPTIONS=--max-old-space-size=${wanted}, or lower the budget)`;
  }
  if (limitMb > wanted + 256) {
    return `the V8 heap limit (${limitMb} MiB) is not the service's policy (--max-old-space-size=${wanted}): garbage may take this process past 512 MiB resident (start it with npm start, or set NODE_OPTIONS=--max-old-space-size=${wanted})`;
  }
  return null;
};

import type { Figure, Status, Target } from './types.ts';

const holds = (target: Target, value: number | null, ratio: number | null): boolean => {
  const measured = target.on === 'ratio' ? ratio : value;
  if (measured === null || !Number.isFinite(measured)) return false;
  return target.op === '>=' ? measured >= target.threshold : measured <= target.threshold;
};

const describe = (target: Target, unit: string): string =>
  `${target.op === '>=' ? '≥' : '≤'} ${target.on === 'ratio' ? `${target.threshold}× baseline` : `${target.threshold.toLocaleString('en-US')} ${unit}`}`;

/** A measured figure, its status decided by every target (all must hold). */
export const figure = (parts: {
  item: string;
  metric: string;
  value: number | null;
  unit: string;
  baseline?: { label: string; value: number } | null;
  targets?: Target[];
  note?: string;
}): Figure => {
  const baseline = parts.baseline ?? null;
  const targets = parts.targets ?? [];
  const ratio = baseline && parts.value !== null && baseline.value > 0 ? parts.value / baseline.value : null;
  let status: Status = 'INFO';
  if (parts.value === null) status = 'N/A';
  else if (targets.length > 0) status = targets.every((target) => holds(target, parts.value, ratio)) ? 'PASS' : 'MISS';
  return {
    item: parts.item,
    metric: parts.metric,
    value: parts.value,
    unit: parts.unit,
    baseline,
    ratio,
    targets,
    targetText: targets.map((target) => describe(target, parts.unit)).join(' and ') || '—',
    status,
    ...(parts.note ? { note: parts.note } : {}),
  };
};

/** A line saying why an item did not run. */
export const notAvailable = (item: string, reason: string): Figure => ({
  item,
  metric: 'not available yet',
  value: null,
  unit: '',
  baseline: null,
  ratio: null,
  targets: [],
  targetText: '—',
  status: 'N/A',
  note: reason,
});

/**
 * The "every core busy" bound of items 2 and 4: the rate the measured CPU per unit of work of every
 * process at work — the service and `others` (load generator, receiver, servers) — would allow if
 * it were spread over `cores` with no cost of coordination, and, in the note, what the target
 * `ratio` of `ceiling` leaves the service per unit (or that it is out of reach whatever the service
 * costs, when the others alone spend more).
 */
export const everyCoreBound = (
  cores: number,
  serviceMs: number,
  others: readonly { label: string; ms: number }[],
  target: { ratio: number; ceiling: number },
  unit: string,
): { value: number; note: string } => {
  const othersMs = others.reduce((sum, { ms }) => sum + ms, 0);
  const budgetMs = (cores * 1000) / (target.ratio * target.ceiling) - othersMs;
  const parts = [`${serviceMs.toFixed(3)} ms service`, ...others.map(({ label, ms }) => `${ms.toFixed(3)} ms ${label}`)].join(' + ');
  const budget =
    budgetMs > 0
      ? `${target.ratio}× needs ≤ ${budgetMs.toFixed(3)} ms of service CPU per ${unit}`
      : `${target.ratio}× is out of reach here even at no service CPU: the other processes alone spend ${(-budgetMs).toFixed(3)} ms per ${unit} more than it allows`;
  return { value: (cores * 1000) / (serviceMs + othersMs), note: `${cores} cores / (${parts} per ${unit}); ${budget}` };
};

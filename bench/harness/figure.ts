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
 * What a target leaves the service per unit of work on this machine, for an every-core bound's
 * note: `budgetMs` is the CPU the target allows per unit minus what the other processes at work
 * (load generator, receiver, servers) spend on it.
 */
export const serviceBudget = (ratio: number, budgetMs: number, unit: string): string =>
  budgetMs > 0
    ? `${ratio}× needs ≤ ${budgetMs.toFixed(3)} ms of service CPU per ${unit}`
    : `${ratio}× is out of reach here even at no service CPU: the other processes alone spend ${(-budgetMs).toFixed(3)} ms per ${unit} more than it allows`;

import type { ViewEvidence } from './body-condition.ts';
import type { TopMeasurement } from './silhouette.ts';

/**
 * Muscle condition from the top-view silhouette (pure). Muscle loss in dogs, cats and horses shows
 * first over the hindquarters and along the spine: seen from above, the hips narrow against the
 * chest and the contour behind the hip points falls in (concave) instead of rounding out.
 *
 * - hindquarter width: hips / chest. Full ≥ 0.9; 0.65 or less counts as fully wasted (linear between).
 * - rear contour: mean gap below the chord from the hip peak to the tail end, share of chest
 *   width. Convex (≤ 0) is full; 0.06 or more counts as fully concave.
 * loss index = 0.6 × hindquarter narrowing + 0.4 × concavity (0..1). Risk factors: senior age
 * (dogs from 7 years, cats 11, horses 15), BCS ≤ 3 (too little reserve) and BCS ≥ 7 (fat can hide
 * muscle loss). wasting_risk_flag: loss ≥ 0.5, or loss ≥ 0.3 with a risk factor.
 */
export type MuscleConditionInput = {
  top: ViewEvidence<TopMeasurement>[];
  speciesId: string | null;
  ageMonths: number | null;
  bcs: number | null;
  /** Where the BCS came from, for the reasons ("recorded", "from the same photos"). */
  bcsSource: string | null;
};

export type MuscleConditionResult = { wasting_risk_flag: boolean; reasons: string; loss_index: number };

const SENIOR_MONTHS: Record<string, number> = { '1': 132, '2': 84, '3': 180 };

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

export const muscleLossIndex = (m: TopMeasurement): number =>
  0.6 * clamp01((0.9 - m.hip_ratio) / 0.25) + 0.4 * clamp01(m.hind_concavity / 0.06);

export const analyseMuscleCondition = (input: MuscleConditionInput): { ok: true; result: MuscleConditionResult } | { ok: false; reason: string } => {
  const { top } = input;
  if (top.length === 0) return { ok: false, reason: 'no silhouette could be measured in the top or back photos' };
  const total = top.reduce((sum, view) => sum + view.quality, 0);
  const mean = (pick: (m: TopMeasurement) => number) => top.reduce((sum, view) => sum + pick(view.measurement) * view.quality, 0) / total;
  const hipRatio = mean((m) => m.hip_ratio);
  const concavity = mean((m) => m.hind_concavity);
  const loss = Math.round(mean(muscleLossIndex) * 100) / 100;
  const reasons: string[] = [
    `from above (${top.length} photo${top.length > 1 ? 's' : ''}): hindquarters ${hipRatio.toFixed(2)} of the chest width (${hipRatio >= 0.9 ? 'full' : hipRatio >= 0.78 ? 'slightly narrow' : 'narrow'}), rear contour ${concavity > 0.015 ? 'concave' : concavity < -0.015 ? 'rounded' : 'straight'} (${concavity.toFixed(3)}); loss index ${loss.toFixed(2)}`,
  ];
  const risks: string[] = [];
  const senior = input.speciesId ? SENIOR_MONTHS[input.speciesId] : undefined;
  if (input.ageMonths !== null && senior !== undefined) {
    if (input.ageMonths >= senior) risks.push(`senior (${Math.floor(input.ageMonths / 12)} years): age-related muscle loss is common`);
    else reasons.push(`age ${Math.floor(input.ageMonths / 12)} years: not a senior`);
  } else reasons.push('age unknown: not counted as a risk');
  if (input.bcs !== null) {
    if (input.bcs <= 3) risks.push(`body condition ${input.bcs}/9 (${input.bcsSource}): little reserve, muscle is used up next`);
    else if (input.bcs >= 7) risks.push(`body condition ${input.bcs}/9 (${input.bcsSource}): fat can hide muscle loss`);
    else reasons.push(`body condition ${input.bcs}/9 (${input.bcsSource}): no added risk`);
  }
  const flag = loss >= 0.5 || (loss >= 0.3 && risks.length > 0);
  reasons.push(...risks.map((risk) => `risk factor: ${risk}`));
  reasons.push(
    flag
      ? loss >= 0.5
        ? 'wasting risk: the hindquarters look wasted'
        : 'wasting risk: mild hindquarter loss together with a risk factor'
      : loss >= 0.3
        ? 'no wasting flag: mild hindquarter narrowing without a risk factor'
        : 'no wasting flag: the hindquarters look well muscled',
  );
  return { ok: true, result: { wasting_risk_flag: flag, reasons: `${reasons.join('; ')}.`, loss_index: loss } };
};

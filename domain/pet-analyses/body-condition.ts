import type { SideMeasurement, TopMeasurement } from './silhouette.ts';

/**
 * Body condition score on the WSAVA 1–9 scale, from silhouette measurements (pure).
 *
 * - From above the WSAVA chart reads the waist behind the ribs: marked hourglass at 1–3, well
 *   proportioned at 4–5, barely visible at 6–7, absent or bulging at 8–9. The waist ratio (waist /
 *   the wider of chest and hips) is mapped onto the scale by the anchors below (0.75 → 4, 0.85 → 5,
 *   1.0 → 7, 1.1 → 9; linear between).
 * - From the side: abdominal tuck (belly rising from chest to flank, share of chest depth) — marked
 *   at 1–3, present at 4–5, slight at 6, absent at 7, a sagging belly at 8–9.
 * - Both views measured: the mean, weighted by each photo's mask quality.
 * - A recorded weight is compared with the breed's ideal weight (the middle of its `weight_kg`
 *   range): about 10 % per point from 5 (WSAVA), weighted 25 % against the silhouettes, because a
 *   breed range is wide and the pet's sex is unknown.
 * Confidence starts at 0.85 with both views (0.6 with one), is scaled by mask quality, lowered
 * when the views disagree by more than 1.5 points, when no weight is given (× 0.9) or when the
 * weight contradicts the silhouettes, raised a little when it agrees. Below REVIEW_CONFIDENCE the
 * score goes to vet review automatically.
 */
export const REVIEW_CONFIDENCE = 0.6;

export type ViewEvidence<M> = { measurement: M; /** mask quality 0..1 */ quality: number; media_id: string };

export type BreedBodyData = {
  id: string;
  name: string;
  species_id: string;
  weight_kg: string | null;
  short_legs?: boolean;
  health_issues?: number | null;
  /** Care-tip titles and descriptions of the breed (its authored advice). */
  care_texts?: string[];
};

export type BodyConditionInput = {
  top: ViewEvidence<TopMeasurement>[];
  side: ViewEvidence<SideMeasurement>[];
  breed: BreedBodyData | null;
  weightKg: number | null;
};

export type BodyConditionResult = {
  score: number;
  reasons: string;
  condition_flags: string[];
  breed_predispositions: string[];
  confidence: number;
  confidence_reason: string;
};

type Anchor = [number, number];
const interpolate = (anchors: Anchor[], value: number): number => {
  if (value <= anchors[0][0]) return anchors[0][1];
  for (let index = 1; index < anchors.length; index++) {
    const [x1, y1] = anchors[index];
    if (value <= x1) {
      const [x0, y0] = anchors[index - 1];
      return y0 + ((value - x0) / (x1 - x0)) * (y1 - y0);
    }
  }
  return anchors[anchors.length - 1][1];
};
/** waist ratio → score (increasing) */
const TOP_ANCHORS: Anchor[] = [
  [0.45, 1],
  [0.55, 2],
  [0.65, 3],
  [0.75, 4],
  [0.85, 5],
  [0.93, 6],
  [1.0, 7],
  [1.05, 8],
  [1.1, 9],
];
/** side index (tuck, minus twice any sag) → score (decreasing) */
const SIDE_ANCHORS: Anchor[] = [
  [-0.15, 9],
  [-0.05, 8],
  [0.05, 7],
  [0.12, 6],
  [0.2, 5],
  [0.3, 4],
  [0.4, 3],
  [0.5, 2],
  [0.6, 1],
];

export const scoreFromTop = (m: TopMeasurement): number => interpolate(TOP_ANCHORS, m.waist_ratio);
export const sideIndex = (m: SideMeasurement): number => m.tuck - 2 * Math.max(0, m.sag);
export const scoreFromSide = (m: SideMeasurement): number => interpolate(SIDE_ANCHORS, sideIndex(m));

/** "11 - 20" → { low: 11, high: 20 } */
export const parseRange = (text: string | null | undefined): { low: number; high: number } | null => {
  if (!text) return null;
  const numbers = text.split(/[-–]/).map((part) => Number(part.trim()));
  if (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n) || n <= 0)) return null;
  return { low: Math.min(...numbers), high: Math.max(...numbers) };
};

const weightedMean = (items: { value: number; weight: number }[]): number => {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  return items.reduce((sum, item) => sum + item.value * item.weight, 0) / total;
};

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** What the breed's own record says about body condition (its authored care advice and flags). */
export const breedPredispositions = (breed: BreedBodyData | null): string[] => {
  if (!breed) return [];
  const out: string[] = [];
  const texts = (breed.care_texts ?? []).join(' \n ').toLowerCase();
  if (/obes|overweight|weight gain|keep (it|them|the cat|a compact cat)? ?(lean|slim|trim)|waistline|middle-age spread|portion/.test(texts)) {
    out.push(`weight gain: the ${breed.name} breed advice warns about keeping it lean`);
  }
  if (/diabet/.test(texts)) out.push(`diabetes mellitus: named in the ${breed.name} breed advice together with weight`);
  if (breed.short_legs || /spine|back problems|disc/.test(texts)) out.push('back and joint strain: a long back or short legs make extra weight a risk');
  const range = parseRange(breed.weight_kg);
  if (breed.species_id === '2' && range && (range.low + range.high) / 2 >= 45) out.push('joint load: giant breeds suffer more from excess weight (hips, elbows)');
  if (typeof breed.health_issues === 'number' && breed.health_issues >= 4) out.push(`above-average health issues (breed rating ${breed.health_issues} of 5): keep the condition ideal`);
  return out;
};

export const analyseBodyCondition = (input: BodyConditionInput): { ok: true; result: BodyConditionResult } | { ok: false; reason: string } => {
  const { top, side, breed, weightKg } = input;
  if (top.length === 0 && side.length === 0) return { ok: false, reason: 'no silhouette could be measured in the top, back or side photos' };
  const reasons: string[] = [];
  const flags: string[] = [];
  const estimates: { value: number; weight: number }[] = [];
  let topScore: number | null = null;
  let sideScore: number | null = null;
  if (top.length > 0) {
    topScore = weightedMean(top.map((view) => ({ value: scoreFromTop(view.measurement), weight: view.quality })));
    const ratio = weightedMean(top.map((view) => ({ value: view.measurement.waist_ratio, weight: view.quality })));
    estimates.push({ value: topScore, weight: weightedMean(top.map((view) => ({ value: view.quality, weight: 1 }))) });
    const word = ratio < 0.65 ? 'a marked hourglass' : ratio < 0.9 ? 'a visible waist' : ratio < 1 ? 'a barely visible waist' : 'no waist (the flanks bulge)';
    reasons.push(`from above (${top.length} photo${top.length > 1 ? 's' : ''}): waist ${fixed(ratio)} of the chest/hip width — ${word} → ${fixed(topScore, 1)}`);
    if (ratio < 0.65) flags.push('prominent_waist');
    if (ratio >= 0.95) flags.push('no_waist_from_above');
  }
  if (side.length > 0) {
    sideScore = weightedMean(side.map((view) => ({ value: scoreFromSide(view.measurement), weight: view.quality })));
    const tuck = weightedMean(side.map((view) => ({ value: view.measurement.tuck, weight: view.quality })));
    const sag = weightedMean(side.map((view) => ({ value: view.measurement.sag, weight: view.quality })));
    estimates.push({ value: sideScore, weight: weightedMean(side.map((view) => ({ value: view.quality, weight: 1 }))) });
    const word = sag > 0.02 ? 'the belly hangs below the chest' : tuck >= 0.35 ? 'a marked abdominal tuck' : tuck >= 0.15 ? 'an abdominal tuck' : tuck >= 0.05 ? 'a slight tuck' : 'no abdominal tuck';
    reasons.push(`from the side (${side.length} photo${side.length > 1 ? 's' : ''}): belly rises ${fixed(tuck)} of the chest depth to the flank, sag ${fixed(sag)} — ${word} → ${fixed(sideScore, 1)}`);
    if (tuck < 0.05) flags.push('abdominal_tuck_absent');
    if (tuck >= 0.4) flags.push('pronounced_abdominal_tuck');
    if (sag > 0.02) flags.push('abdominal_sag');
  }
  const silhouetteScore = weightedMean(estimates);
  let confidence = top.length > 0 && side.length > 0 ? 0.85 : 0.6;
  const confidenceReasons: string[] = [top.length > 0 && side.length > 0 ? 'top and side views measured' : `only the ${top.length > 0 ? 'top' : 'side'} view measured`];
  const quality = weightedMean([...top, ...side].map((view) => ({ value: view.quality, weight: 1 })));
  confidence *= 0.6 + 0.4 * quality;
  confidenceReasons.push(`mask quality ${fixed(quality)}`);
  if (topScore !== null && sideScore !== null && Math.abs(topScore - sideScore) > 1.5) {
    confidence *= 0.8;
    confidenceReasons.push(`the views disagree (${fixed(topScore, 1)} vs ${fixed(sideScore, 1)})`);
    flags.push('views_disagree');
  }

  const range = parseRange(breed?.weight_kg);
  const ideal = range ? (range.low + range.high) / 2 : null;
  if (breed && ideal !== null) reasons.push(`${breed.name}: ideal weight ${fixed(ideal, 1)} kg (middle of ${range!.low}–${range!.high} kg)`);
  let score = silhouetteScore;
  if (weightKg !== null && ideal !== null) {
    const weightScore = Math.min(9, Math.max(1, 5 + (weightKg / ideal - 1) / 0.1));
    score = 0.75 * silhouetteScore + 0.25 * weightScore;
    reasons.push(`recorded weight ${weightKg} kg is ${fixed((weightKg / ideal) * 100, 0)} % of the ideal → ${fixed(weightScore, 1)} (weighted 25 %)`);
    if (weightKg > range!.high) flags.push('weight_above_breed_range');
    if (weightKg < range!.low) flags.push('weight_below_breed_range');
    const gap = Math.abs(weightScore - silhouetteScore);
    if (gap <= 1.5) {
      confidence = Math.min(0.95, confidence * 1.05);
      confidenceReasons.push('the weight agrees with the silhouette');
    } else if (gap > 3) {
      confidence *= 0.75;
      confidenceReasons.push('the weight contradicts the silhouette');
    }
  } else {
    confidence *= 0.9;
    confidenceReasons.push(weightKg === null ? 'no recorded weight' : 'no breed ideal weight to compare the weight with');
  }
  score = Math.min(9, Math.max(1, Math.round(score)));
  flags.unshift(score <= 3 ? 'underweight' : score <= 5 ? 'ideal' : score <= 7 ? 'overweight' : 'obese');
  confidence = Math.round(Math.min(0.95, Math.max(0.05, confidence)) * 100) / 100;
  if (confidence < REVIEW_CONFIDENCE) flags.push('vet_review_recommended');
  return {
    ok: true,
    result: {
      score,
      reasons: `${reasons.join('; ')}. WSAVA ${score}/9.`,
      condition_flags: flags,
      breed_predispositions: breedPredispositions(breed),
      confidence,
      confidence_reason: `${confidenceReasons.join('; ')}${confidence < REVIEW_CONFIDENCE ? ` — below ${REVIEW_CONFIDENCE}, sent to vet review` : ''}`,
    },
  };
};

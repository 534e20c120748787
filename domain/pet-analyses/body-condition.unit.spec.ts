import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../test/decider-spec.ts';
import { bcsReviewDecider, bcsReviewViewOf, bcsCorrectionFields, type BcsReviewRequest, type BcsReviewed } from './bcs-review.ts';
import { analyseBodyCondition, breedPredispositions, parseRange, scoreFromSide, scoreFromTop, type BreedBodyData } from './body-condition.ts';
import { analyseMuscleCondition, muscleLossIndex } from './muscle-condition.ts';
import { measureSideView, measureTopView, type Mask, type SideMeasurement, type TopMeasurement } from './silhouette.ts';

/** A mask drawn directly: the body along x, its width (top view) a piecewise-linear profile of the chest width. */
const topMask = (profile: [number, number][], { length = 200, chest = 60, vertical = false } = {}): Mask => {
  const [width, height] = [length + 40, chest * 2 + 40];
  const data = new Uint8Array(width * height);
  for (let i = 0; i < length; i++) {
    const s = i / (length - 1);
    const k = profile.findIndex(([x]) => x >= s);
    const [x0, y0] = profile[Math.max(0, k - 1)];
    const [x1, y1] = profile[k];
    const share = x1 === x0 ? y1 : y0 + ((s - x0) / (x1 - x0)) * (y1 - y0);
    const half = Math.round((share * chest) / 2);
    for (let y = height / 2 - half; y < height / 2 + half; y++) data[y * width + 20 + i] = 1;
  }
  if (!vertical) return { width, height, data };
  const turned = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) turned[x * height + y] = data[y * width + x];
  return { width: height, height: width, data: turned };
};

/** A side mask: straight back at y = 20, belly at 20 + depth × profile, legs (to y = ground) at 15 % and 85 %. */
const sideMask = (profile: [number, number][], { length = 200, depth = 60 } = {}): Mask => {
  const [width, height, ground] = [length + 40, 200, 190];
  const data = new Uint8Array(width * height);
  const set = (x: number, y0: number, y1: number) => {
    for (let y = y0; y < y1; y++) data[y * width + x] = 1;
  };
  for (let i = 0; i < length; i++) {
    const s = i / (length - 1);
    const k = profile.findIndex(([x]) => x >= s);
    const [x0, y0] = profile[Math.max(0, k - 1)];
    const [x1, y1] = profile[k];
    const share = x1 === x0 ? y1 : y0 + ((s - x0) / (x1 - x0)) * (y1 - y0);
    set(20 + i, 20, 20 + Math.round(share * depth));
    if (Math.abs(s - 0.15) < 0.03 || Math.abs(s - 0.85) < 0.03) set(20 + i, 20, ground);
  }
  return { width, height, data };
};

const HOURGLASS: [number, number][] = [[0, 0.4], [0.25, 1], [0.5, 0.8], [0.75, 0.95], [1, 0.4]];
const BARREL: [number, number][] = [[0, 0.4], [0.25, 1], [0.5, 1.15], [0.75, 1], [1, 0.4]];
const WASP: [number, number][] = [[0, 0.4], [0.25, 1], [0.5, 0.55], [0.75, 0.9], [1, 0.4]];
const WASTED: [number, number][] = [[0, 0.4], [0.25, 1], [0.5, 0.65], [0.7, 0.65], [0.8, 0.35], [1, 0.3]];

describe('silhouette measurements', () => {
  it('top view: chest, waist and hip widths of a drawn hourglass, whichever way the body lies', () => {
    for (const vertical of [false, true]) {
      const m = measureTopView(topMask(HOURGLASS, { vertical }))!;
      expect(m.length_px).toBe(200);
      expect(m.chest_width).toBeCloseTo(60, -0.5);
      expect(m.waist_ratio).toBeGreaterThan(0.76);
      expect(m.waist_ratio).toBeLessThan(0.84);
      expect(m.hip_ratio).toBeGreaterThan(0.9);
    }
    // which end is the head does not matter
    const reversed = measureTopView(topMask(HOURGLASS.map(([s, w]) => [1 - s, w] as [number, number]).reverse()))!;
    expect(reversed.waist_ratio).toBeCloseTo(measureTopView(topMask(HOURGLASS))!.waist_ratio, 2);
  });

  it('top view: a bulging middle has a waist ratio above 1; nothing measurable is null', () => {
    expect(measureTopView(topMask(BARREL))!.waist_ratio).toBeGreaterThan(1.0);
    expect(measureTopView({ width: 10, height: 10, data: new Uint8Array(100) })).toBeNull();
    expect(measureTopView(topMask(HOURGLASS, { length: 30, chest: 20 }))).toBeNull();
  });

  it('side view: legs are not torso; tuck and sag from the belly line', () => {
    const tucked = measureSideView(sideMask([[0, 0.6], [0.25, 1], [0.5, 0.9], [0.8, 0.7], [1, 0.6]]))!;
    expect(tucked.tuck).toBeGreaterThan(0.2);
    expect(tucked.sag).toBeLessThan(0);
    const hanging = measureSideView(sideMask([[0, 0.6], [0.25, 1], [0.5, 1.2], [0.8, 1], [1, 0.6]]))!;
    expect(hanging.sag).toBeGreaterThan(0.03);
    expect(hanging.tuck).toBeLessThan(0.15);
    expect(scoreFromSide(hanging)).toBeGreaterThanOrEqual(7);
    expect(scoreFromSide(tucked)).toBeLessThanOrEqual(5);
  });
});

const top = (m: TopMeasurement, quality = 0.95) => ({ measurement: m, quality, media_id: 'm1' });
const side = (m: SideMeasurement, quality = 0.95) => ({ measurement: m, quality, media_id: 'm2' });
const topOf = (waist_ratio: number): TopMeasurement => ({ view: 'top', length_px: 200, chest_width: 60, waist_width: 60 * waist_ratio, hip_width: 57, waist_ratio, hip_ratio: 0.95, hind_concavity: -0.05 });
const sideOf = (tuck: number, sag: number): SideMeasurement => ({ view: 'side', length_px: 180, chest_depth: 60, tuck, sag });
const lab: BreedBodyData = {
  id: 'labrador-retriever',
  name: 'Labrador Retriever',
  species_id: '2',
  weight_kg: '25 - 36',
  care_texts: ['Guard against obesity: Labradors love food; measure meals.'],
};

describe('body condition score', () => {
  it('maps the WSAVA anchors: hourglass ideal, no waist obese, deep waist thin', () => {
    expect(scoreFromTop(topOf(0.8))).toBeCloseTo(4.5, 5);
    expect(scoreFromTop(topOf(1.05))).toBe(8);
    expect(scoreFromTop(topOf(0.55))).toBe(2);
    expect(scoreFromTop(topOf(2))).toBe(9);
    expect(scoreFromTop(topOf(0.1))).toBe(1);
    expect(scoreFromSide(sideOf(0.25, -0.05))).toBeCloseTo(4.5, 5);
    expect(scoreFromSide(sideOf(0, 0.1))).toBeGreaterThan(8);
    expect(scoreFromSide(sideOf(0.5, -0.1))).toBe(2);
  });

  it('two good views, no weight: the mean score, confidence above the review threshold', () => {
    const analysed = analyseBodyCondition({ top: [top(topOf(0.8))], side: [side(sideOf(0.25, -0.05))], breed: lab, weightKg: null });
    if (!analysed.ok) throw new Error(analysed.reason);
    expect(analysed.result.score).toBe(5);
    expect(analysed.result.condition_flags).toEqual(['ideal']);
    expect(analysed.result.confidence).toBeCloseTo(0.85 * (0.6 + 0.4 * 0.95) * 0.9, 2);
    expect(analysed.result.reasons).toMatch(/ideal weight 30.5 kg \(middle of 25–36 kg\)/);
    expect(analysed.result.breed_predispositions).toEqual(['weight gain: the Labrador Retriever breed advice warns about keeping it lean']);
  });

  it('confidence falls with one view, a poor mask, disagreeing views and a contradicting weight; rises with an agreeing weight', () => {
    const both = analyseBodyCondition({ top: [top(topOf(0.8))], side: [side(sideOf(0.25, -0.05))], breed: lab, weightKg: null });
    const one = analyseBodyCondition({ top: [top(topOf(0.8))], side: [], breed: lab, weightKg: null });
    const poor = analyseBodyCondition({ top: [top(topOf(0.8), 0.35)], side: [side(sideOf(0.25, -0.05), 0.35)], breed: lab, weightKg: null });
    const disagree = analyseBodyCondition({ top: [top(topOf(0.8))], side: [side(sideOf(0, 0.1))], breed: lab, weightKg: null });
    const agrees = analyseBodyCondition({ top: [top(topOf(0.8))], side: [side(sideOf(0.25, -0.05))], breed: lab, weightKg: 31 });
    const contradicts = analyseBodyCondition({ top: [top(topOf(0.8))], side: [side(sideOf(0.25, -0.05))], breed: lab, weightKg: 60 });
    const c = (r: typeof both) => (r.ok ? r.result.confidence : NaN);
    expect(c(one)).toBeLessThan(0.6);
    expect(one.ok && one.result.condition_flags).toContain('vet_review_recommended');
    expect(c(poor)).toBeLessThan(c(both));
    expect(c(disagree)).toBeLessThan(c(both));
    expect(disagree.ok && disagree.result.condition_flags).toContain('views_disagree');
    expect(c(agrees)).toBeGreaterThan(c(both));
    expect(c(contradicts)).toBeLessThan(c(both));
    expect(contradicts.ok && contradicts.result.condition_flags).toContain('weight_above_breed_range');
    // 60 kg is ~197 % of 30.5: the weight alone says 9; weighted 25 % it moves the score up.
    expect(contradicts.ok && contradicts.result.score).toBeGreaterThan(5);
  });

  it('nothing measured: not possible, with the reason', () => {
    expect(analyseBodyCondition({ top: [], side: [], breed: lab, weightKg: 30 })).toEqual({ ok: false, reason: expect.stringMatching(/no silhouette/) });
  });

  it('breed predispositions come from the breed record', () => {
    expect(breedPredispositions(null)).toEqual([]);
    expect(breedPredispositions({ id: 'x', name: 'X', species_id: '2', weight_kg: '10 - 12', care_texts: ['Brush weekly'] })).toEqual([]);
    const dachshund = breedPredispositions({ id: 'dachshund', name: 'Dachshund', species_id: '2', weight_kg: '5 - 15', care_texts: ['Protect the spine: no jumping', 'Keep it trim: extra weight strains the back'] });
    expect(dachshund).toHaveLength(2);
    expect(breedPredispositions({ id: 'mastiff', name: 'Mastiff', species_id: '2', weight_kg: '54 - 100' })[0]).toMatch(/giant/);
    expect(breedPredispositions({ id: 'bure', name: 'Burmese', species_id: '1', weight_kg: '3 - 6', care_texts: ['Guard against weight gain and diabetes'] })).toHaveLength(2);
    expect(parseRange('25 - 36')).toEqual({ low: 25, high: 36 });
    expect(parseRange('unknown')).toBeNull();
  });
});

describe('muscle condition', () => {
  it('full hindquarters are not flagged; wasted ones are; a risk factor tips a mild loss', () => {
    const full = measureTopView(topMask(HOURGLASS))!;
    const wasted = measureTopView(topMask(WASTED))!;
    expect(muscleLossIndex(full)).toBeLessThan(0.1);
    expect(muscleLossIndex(wasted)).toBeGreaterThan(0.5);
    const young = analyseMuscleCondition({ top: [top(full)], speciesId: '2', ageMonths: 30, bcs: 5, bcsSource: 'recorded' });
    expect(young.ok && young.result.wasting_risk_flag).toBe(false);
    const old = analyseMuscleCondition({ top: [top(wasted)], speciesId: '2', ageMonths: 150, bcs: 3, bcsSource: 'recorded' });
    expect(old.ok && old.result.wasting_risk_flag).toBe(true);
    expect(old.ok && old.result.reasons).toMatch(/senior \(12 years\).*body condition 3\/9/);
    const mild: TopMeasurement = { ...full, hip_ratio: 0.78, hind_concavity: 0 };
    expect(muscleLossIndex(mild)).toBeCloseTo(0.29, 2);
    const mildish: TopMeasurement = { ...full, hip_ratio: 0.75, hind_concavity: 0 };
    const adult = analyseMuscleCondition({ top: [top(mildish)], speciesId: '1', ageMonths: 24, bcs: 5, bcsSource: 'recorded' });
    const senior = analyseMuscleCondition({ top: [top(mildish)], speciesId: '1', ageMonths: 140, bcs: 5, bcsSource: 'recorded' });
    expect(adult.ok && adult.result.wasting_risk_flag).toBe(false);
    expect(senior.ok && senior.result.wasting_risk_flag).toBe(true);
    expect(analyseMuscleCondition({ top: [], speciesId: '2', ageMonths: null, bcs: null, bcsSource: null }).ok).toBe(false);
  });
});

const request: BcsReviewRequest = {
  review_id: 'a1',
  analysis_id: 'a1',
  pet_id: 'p1',
  account_id: 'acc',
  sub_id: 's1',
  external_owner_id: 's1',
  trigger: 'low_confidence',
  note: null,
  score: 5,
  confidence: 0.45,
  confidence_reason: 'only the top view measured',
  condition_flags: ['ideal'],
  reasons: 'waist',
  requested_at: '2026-11-24T10:00:00.000Z',
};
const now = '2026-11-24T11:00:00.000Z';
const reviewed: BcsReviewed = { type: 'BcsReviewed', data: { ...request, status: 'completed', corrected_score: 6, vet_notes: null, reviewed_at: now } };

describe('vet review decider', () => {
  const spec = deciderSpec(bcsReviewDecider);
  it('one review per score: requested once, asked again nothing', () => {
    spec.given([]).when({ type: 'RequestBcsReview', request }).then([{ type: 'BcsReviewRequested', data: request }]);
    spec.given([{ type: 'BcsReviewRequested', data: request }]).when({ type: 'RequestBcsReview', request }).thenNothing();
  });
  it('a decision completes or rejects; the same decision again is nothing; a different one is 409; unknown is 404', () => {
    const decision = { status: 'completed' as const, corrected_score: 6, vet_notes: null };
    spec.given([{ type: 'BcsReviewRequested', data: request }]).when({ type: 'DecideBcsReview', decision, now }).then([reviewed]);
    spec.given([{ type: 'BcsReviewRequested', data: request }, reviewed]).when({ type: 'DecideBcsReview', decision, now }).thenNothing();
    spec.given([{ type: 'BcsReviewRequested', data: request }, reviewed]).when({ type: 'DecideBcsReview', decision: { ...decision, corrected_score: 7 }, now }).thenThrows('conflict');
    spec.given([]).when({ type: 'DecideBcsReview', decision, now }).thenThrows('not_found');
    spec.given([{ type: 'BcsReviewRequested', data: request }]).when({ type: 'DecideBcsReview', decision: { status: 'rejected', corrected_score: 3, vet_notes: null }, now }).thenThrows('validation_failed');
  });
  it('the view of each event is the whole review; a correction sets the pet’s score', () => {
    expect(bcsReviewViewOf({ type: 'BcsReviewRequested', data: request })).toMatchObject({ id: 'a1', status: 'pending', score: 5, reviewed_at: null, sub_id: 's1' });
    expect(bcsReviewViewOf(reviewed)).toMatchObject({ status: 'completed', score: 6, original_score: 5, corrected_score: 6, reviewed_at: now });
    expect(bcsCorrectionFields(reviewed.data)).toMatchObject({ body_condition_score: 6, body_condition_score_timestamp: now });
    expect(bcsCorrectionFields({ ...reviewed.data, status: 'rejected', corrected_score: null })).toBeNull();
  });
});

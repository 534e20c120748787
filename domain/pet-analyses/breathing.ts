/**
 * Breathing rate from a sequence of small grey frames (pure; the processor decodes the video).
 *
 * 1. Each pixel's brightness over time, linearly detrended (slow light changes removed).
 * 2. The breathing region: the pixels that move most — those whose temporal standard deviation
 *    is above the noise floor, the strongest `regionPixels` of them.
 * 3. Their power spectra (Hann window, DFT evaluated on a fine grid inside the species' band)
 *    are summed (computed as the cosine transform of their summed autocorrelation, which is the
 *    same sum at O(n) per frequency). Summing powers rather than brightness keeps pixels on opposite edges of a moving
 *    chest, which brighten and darken in antiphase, from cancelling each other.
 * 4. The dominant frequency is the peak of that sum, refined on a finer grid and by a parabola
 *    through the three points around it. A still video, a peak no stronger than the rest of the
 *    band, or a peak on the band's edge (the rhythm lies outside it) is a failure with a reason,
 *    never a made-up rate.
 */

import FFT from 'fft.js';

export type BreathingBand = { low: number; high: number };

/** Resting (sleeping) breaths per minute by species, and the wider band the analysis searches. */
export const SPECIES_BREATHING: Record<string, { name: string; baseline: BreathingBand; band: BreathingBand }> = {
  '1': { name: 'cat', baseline: { low: 16, high: 30 }, band: { low: 8, high: 80 } },
  '2': { name: 'dog', baseline: { low: 15, high: 30 }, band: { low: 6, high: 80 } },
  '3': { name: 'horse', baseline: { low: 8, high: 16 }, band: { low: 4, high: 40 } },
};
export const UNKNOWN_SPECIES_BREATHING = { name: 'animal', baseline: null, band: { low: 4, high: 80 } } as const;

export const BreathingLimits = {
  /** Below this temporal standard deviation (grey levels, 0–255) a pixel is taken as still (codec noise). */
  noiseFloor: 1.5,
  regionPixels: 1500,
  minSeconds: 8,
  /** The peak must carry this many times the median power of the band. */
  minProminence: 6,
  coarseStepPerMin: 0.25,
  fineStepPerMin: 0.02,
};

export type BreathingResult =
  | { ok: true; breaths_per_minute: number; prominence: number; region_pixels: number; seconds: number; reasons: string }
  | { ok: false; reason: string };

export type Frames = { width: number; height: number; fps: number; frames: Uint8Array[] };

const round1 = (value: number) => Math.round(value * 10) / 10;

/** Detrended, windowed time series of the moving pixels (one Float64Array per pixel). */
const movingPixels = ({ width, height, frames }: Frames): { series: Float64Array[]; maxStd: number } => {
  const n = frames.length;
  const pixels = width * height;
  const tMean = (n - 1) / 2;
  let tVar = 0;
  for (let t = 0; t < n; t++) tVar += (t - tMean) ** 2;
  // One pass over the frames in memory order: per pixel Σx, Σ(t − t̄)x and Σx² (exact in doubles:
  // integers below 2^53). The residual of the linear fit then follows without a second pass:
  // Σ residual² = Σx² − n·mean² − slope²·Σ(t − t̄)².
  const sums = new Float64Array(pixels);
  const covs = new Float64Array(pixels);
  const squaresSum = new Float64Array(pixels);
  for (let t = 0; t < n; t++) {
    const frame = frames[t];
    const dt = t - tMean;
    for (let p = 0; p < pixels; p++) {
      const x = frame[p];
      sums[p] += x;
      covs[p] += dt * x;
      squaresSum[p] += x * x;
    }
  }
  const stds = new Float64Array(pixels);
  const means = new Float64Array(pixels);
  const slopes = new Float64Array(pixels);
  let maxStd = 0;
  for (let p = 0; p < pixels; p++) {
    const mean = sums[p] / n;
    const slope = covs[p] / tVar;
    const squares = Math.max(0, squaresSum[p] - n * mean * mean - slope * slope * tVar);
    const std = Math.sqrt(squares / n);
    stds[p] = std;
    means[p] = mean;
    slopes[p] = slope;
    if (std > maxStd) maxStd = std;
  }
  const candidates: number[] = [];
  for (let p = 0; p < pixels; p++) if (stds[p] >= BreathingLimits.noiseFloor) candidates.push(p);
  candidates.sort((a, b) => stds[b] - stds[a]);
  const chosen = candidates.slice(0, BreathingLimits.regionPixels);
  const window = new Float64Array(n);
  for (let t = 0; t < n; t++) window[t] = 0.5 - 0.5 * Math.cos((2 * Math.PI * t) / (n - 1));
  const series = chosen.map((p) => {
    const values = new Float64Array(n);
    for (let t = 0; t < n; t++) values[t] = (frames[t][p] - means[p] - slopes[p] * (t - tMean)) * window[t];
    return values;
  });
  return { series, maxStd };
};

/**
 * The summed autocorrelation of the series, R(τ) = Σ_p Σ_t x_p(t)·x_p(t+τ). The summed power
 * spectrum is its cosine transform — Σ_p |X_p(f)|² = R(0) + 2 Σ_τ R(τ)·cos(ωτ) for real series —
 * so every frequency then costs O(n) instead of O(pixels × n): the same sum, computed once.
 *
 * R itself comes from the Wiener–Khinchin theorem: each series, zero-padded to at least 2n − 1
 * points (so the circular correlation equals the linear one for every lag below n), goes through
 * one real FFT; their power spectra are summed, and one inverse FFT of the sum gives R. That is
 * O(pixels × n log n) instead of the O(pixels × n²) of summing the products lag by lag — for
 * 1,500 pixels over 240 frames ≈ 30 ms instead of ≈ 300 ms on the event loop — and equal to it
 * within rounding (the unit spec compares the two).
 */
export const summedAutocorrelation = (series: readonly Float64Array[]): Float64Array => {
  const n = series[0].length;
  let size = 2;
  while (size < 2 * n - 1) size *= 2;
  const fft = new FFT(size);
  const padded = new Float64Array(size);
  const spectrum: number[] = fft.createComplexArray();
  const power: number[] = fft.createComplexArray(); // (zero-filled)
  for (const values of series) {
    padded.set(values);
    fft.realTransform(spectrum, padded);
    fft.completeSpectrum(spectrum);
    for (let f = 0; f < size; f++) power[2 * f] += spectrum[2 * f] ** 2 + spectrum[2 * f + 1] ** 2;
  }
  const correlation: number[] = fft.createComplexArray();
  fft.inverseTransform(correlation, power);
  const r = new Float64Array(n);
  for (let lag = 0; lag < n; lag++) r[lag] = correlation[2 * lag];
  return r;
};

/** Summed power of every series at `perMinute` (a DFT term at an arbitrary frequency), from their summed autocorrelation. */
const powerAt = (autocorrelation: Float64Array, fps: number, perMinute: number): number => {
  const omega = (2 * Math.PI * perMinute) / 60 / fps;
  let total = autocorrelation[0];
  for (let lag = 1; lag < autocorrelation.length; lag++) total += 2 * autocorrelation[lag] * Math.cos(omega * lag);
  return Math.max(0, total);
};

export const analyseBreathing = (input: Frames, band: BreathingBand): BreathingResult => {
  const seconds = input.frames.length / input.fps;
  if (seconds < BreathingLimits.minSeconds) {
    return { ok: false, reason: `the video gives ${round1(seconds)} s of frames; at least ${BreathingLimits.minSeconds} s are needed to count breaths` };
  }
  const { series, maxStd } = movingPixels(input);
  const autocorrelation = series.length > 0 ? summedAutocorrelation(series) : new Float64Array(0);
  if (series.length === 0) {
    return {
      ok: false,
      reason: `no movement found: no pixel changes by more than the noise floor (largest variation ${round1(maxStd)} grey levels), so there is no breathing motion to measure`,
    };
  }
  const coarse: { f: number; power: number }[] = [];
  for (let f = band.low; f <= band.high + 1e-9; f += BreathingLimits.coarseStepPerMin) coarse.push({ f, power: powerAt(autocorrelation, input.fps, f) });
  let best = 0;
  for (let i = 1; i < coarse.length; i++) if (coarse[i].power > coarse[best].power) best = i;
  const sorted = coarse.map((point) => point.power).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] || Number.MIN_VALUE;
  const prominence = coarse[best].power / median;
  if (best === 0 || best === coarse.length - 1) {
    return {
      ok: false,
      reason: `the strongest rhythm lies at the edge of the plausible band of ${band.low}–${band.high} breaths/min, so the motion is not breathing (or lies outside the band)`,
    };
  }
  // Faster motion outside the band (panting, twitching) can alias into it through its harmonics:
  // if anything up to the Nyquist frequency is stronger than the band's peak, it is not breathing.
  const nyquist = (input.fps / 2) * 60;
  for (let f = Math.max(1, band.low / 2); f < nyquist - 1; f += f < band.high ? BreathingLimits.coarseStepPerMin * 2 : 1) {
    if (f >= band.low && f <= band.high) continue;
    if (powerAt(autocorrelation, input.fps, f) > coarse[best].power) {
      return {
        ok: false,
        reason: `the strongest rhythm (about ${Math.round(f)}/min) lies outside the plausible band of ${band.low}–${band.high} breaths/min, so the motion is not resting breathing`,
      };
    }
  }
  if (prominence < BreathingLimits.minProminence) {
    return {
      ok: false,
      reason: `no clear breathing rhythm: the strongest frequency carries ${round1(prominence)}× the median power of the band, below the ${BreathingLimits.minProminence}× needed`,
    };
  }
  // Refine between the coarse neighbours, then a parabola through the best fine point and its neighbours.
  const from = coarse[best - 1].f;
  const to = coarse[best + 1].f;
  let fineBest = { f: coarse[best].f, power: coarse[best].power };
  const step = BreathingLimits.fineStepPerMin;
  for (let f = from; f <= to + 1e-9; f += step) {
    const power = powerAt(autocorrelation, input.fps, f);
    if (power > fineBest.power) fineBest = { f, power };
  }
  const left = powerAt(autocorrelation, input.fps, fineBest.f - step);
  const right = powerAt(autocorrelation, input.fps, fineBest.f + step);
  const denominator = left - 2 * fineBest.power + right;
  const offset = denominator < 0 ? (0.5 * (left - right)) / denominator : 0;
  const rate = fineBest.f + Math.max(-1, Math.min(1, offset)) * step;
  return {
    ok: true,
    breaths_per_minute: round1(rate),
    prominence: round1(prominence),
    region_pixels: series.length,
    seconds: round1(seconds),
    reasons:
      `${round1(seconds)} s analysed at ${input.fps} frames/s; breathing region of ${series.length} moving pixels; ` +
      `dominant rhythm ${round1(rate)}/min in the ${band.low}–${band.high}/min band, ${round1(prominence)}× the band's median power`,
  };
};

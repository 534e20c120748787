import { describe, expect, it } from 'vitest';
import { analyseBreathing, SPECIES_BREATHING, summedAutocorrelation, type Frames } from './breathing.ts';

/** Frames of a dark box on a light ground whose top edge rises and falls at `perMinute` (anti-aliased edges). */
const movingBox = (perMinute: number, seconds = 30, fps = 8, amplitude = 6): Frames => {
  const width = 80;
  const height = 60;
  const frames: Uint8Array[] = [];
  for (let i = 0; i < seconds * fps; i++) {
    const t = i / fps;
    const top = 20 + amplitude * Math.sin((2 * Math.PI * perMinute * t) / 60);
    const frame = new Uint8Array(width * height).fill(220);
    for (let y = 0; y < height; y++) {
      const cover = Math.max(0, Math.min(1, y + 1 - top)) * (y < 45 ? 1 : 0);
      for (let x = 20; x < 60; x++) frame[y * width + x] = Math.round(220 - 180 * cover);
    }
    frames.push(frame);
  }
  return { width, height, fps, frames };
};

describe('summed autocorrelation', () => {
  /** The definition, lag by lag: R(τ) = Σ_p Σ_t x_p(t)·x_p(t+τ). */
  const direct = (series: Float64Array[]): Float64Array => {
    const n = series[0].length;
    const r = new Float64Array(n);
    for (const values of series) for (let lag = 0; lag < n; lag++) for (let t = 0; t + lag < n; t++) r[lag] += values[t] * values[t + lag];
    return r;
  };
  /** Deterministic pseudo-random series (a linear congruential generator), centred on 0. */
  const seriesOf = (count: number, length: number, seed: number): Float64Array[] => {
    let state = seed;
    const next = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648) * 20 - 10;
    return Array.from({ length: count }, () => Float64Array.from({ length }, next));
  };

  it.each([
    [1, 2],
    [3, 7],
    [40, 240],
    [5, 257],
  ])('equals the lag-by-lag sum for %i series of %i points (FFT size ≥ 2n − 1: no wrap-around)', (count, length) => {
    const series = seriesOf(count, length, count * 1000 + length);
    const expected = direct(series);
    const actual = summedAutocorrelation(series);
    expect(actual).toHaveLength(length);
    for (let lag = 0; lag < length; lag++) expect(Math.abs(actual[lag] - expected[lag])).toBeLessThanOrEqual(1e-9 * expected[0]);
  });
});

describe('breathing rate from frames', () => {
  it.each([12, 24, 40])('reads a shape moving at %i/min within ± 1', (rate) => {
    const result = analyseBreathing(movingBox(rate), SPECIES_BREATHING['2'].band);
    expect(result.ok).toBe(true);
    if (result.ok) expect(Math.abs(result.breaths_per_minute - rate)).toBeLessThanOrEqual(1);
  });

  it('a still scene fails with a reason instead of a rate', () => {
    const still = movingBox(24, 30, 8, 0);
    const result = analyseBreathing(still, SPECIES_BREATHING['2'].band);
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.reason).toMatch(/no movement/);
  });

  it('too short a clip fails', () => {
    const result = analyseBreathing(movingBox(24, 4), SPECIES_BREATHING['2'].band);
    expect(result).toMatchObject({ ok: false });
  });

  it('a rhythm outside the band is not reported as breathing', () => {
    const result = analyseBreathing(movingBox(150, 30, 8), SPECIES_BREATHING['3'].band);
    expect(result.ok).toBe(false);
  });
});

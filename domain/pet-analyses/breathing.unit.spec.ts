import { describe, expect, it } from 'vitest';
import { analyseBreathing, SPECIES_BREATHING, type Frames } from './breathing.ts';

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

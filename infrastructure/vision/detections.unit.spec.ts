import { describe, expect, it } from 'vitest';
import { decodeCenterNet } from './detections.ts';

const full = { left: 0, top: 0, width: 512, height: 512 };

describe('CenterNet output decoding', () => {
  it('turns pixel corners into fractions of the image inside its letterbox frame', () => {
    // image drawn at x 51..461 (410 wide), y 120..392 (272 high) of the 512 square
    const frame = { left: 51, top: 120, width: 410, height: 272 };
    const [d] = decodeCenterNet([[51 + 41, 120 + 68, 51 + 205, 120 + 272, 0.9, 15]], frame);
    expect(d.label).toBe('cat');
    expect(d.confidence).toBeCloseTo(0.9);
    expect(d.box.left).toBeCloseTo(0.1);
    expect(d.box.top).toBeCloseTo(0.25);
    expect(d.box.width).toBeCloseTo(0.4);
    expect(d.box.height).toBeCloseTo(0.75);
  });

  it('clamps boxes that reach into the margin to the image', () => {
    const [d] = decodeCenterNet([[-20, -5, 600, 256, 0.8, 16]], full);
    expect(d.label).toBe('dog');
    expect(d.box).toEqual({ left: 0, top: 0, width: 1, height: 0.5 });
  });

  it('drops rows under the confidence floor, unknown classes and empty boxes', () => {
    const rows = [
      [0, 0, 100, 100, 0.29, 15],
      [0, 0, 100, 100, 0.9, 80],
      [0, 0, 100, 100, 0.9, Number.NaN],
      [100, 100, 100, 200, 0.9, 17],
      [0, 0, 100, 100, 0.31, 17],
    ];
    expect(decodeCenterNet(rows, full).map((d) => [d.label, d.confidence])).toEqual([['horse', 0.31]]);
    expect(decodeCenterNet(rows, full, 0.1)).toHaveLength(2);
  });

  it('keeps the best of overlapping boxes of one class, and overlapping boxes of different classes', () => {
    const rows = [
      [0, 0, 200, 200, 0.5, 15],
      [5, 5, 205, 205, 0.7, 15],
      [0, 0, 200, 200, 0.4, 16],
      [300, 300, 500, 500, 0.6, 15],
    ];
    const out = decodeCenterNet(rows, full);
    expect(out.map((d) => [d.label, d.confidence])).toEqual([['cat', 0.7], ['cat', 0.6], ['dog', 0.4]]);
  });
});

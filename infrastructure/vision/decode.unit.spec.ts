import { describe, expect, it } from 'vitest';
import { cropRegion } from './decode.ts';

describe('the classifier crop of a box', () => {
  it('widens the box by the margin on every side and squares it around its centre', () => {
    // a 200 × 100 box at (400, 300) of a 1000 × 800 image; +10 %: 240 × 120; square: 240 × 240
    const region = cropRegion(1000, 800, { left: 0.4, top: 0.375, width: 0.2, height: 0.125 }, 0.1);
    expect(region).toEqual({ left: 380, top: 230, width: 240, height: 240 });
  });

  it('stays inside the image: shifted from the edges, and never larger than the image', () => {
    // a full-height box at the left edge of a wide image: widened to 360 high, cut to the image's 300
    expect(cropRegion(600, 300, { left: 0, top: 0, width: 0.2, height: 1 }, 0.1)).toEqual({ left: 0, top: 0, width: 360, height: 300 });
    // the whole image
    expect(cropRegion(640, 480, { left: 0, top: 0, width: 1, height: 1 }, 0.1)).toEqual({ left: 0, top: 0, width: 640, height: 480 });
    // a box at the bottom-right corner
    const corner = cropRegion(500, 400, { left: 0.9, top: 0.9, width: 0.1, height: 0.1 }, 0.1);
    expect(corner.left + corner.width).toBeLessThanOrEqual(500);
    expect(corner.top + corner.height).toBeLessThanOrEqual(400);
    expect(corner.width).toBe(60);
  });

  it('gives at least one pixel for an empty box', () => {
    expect(cropRegion(100, 100, { left: 0.5, top: 0.5, width: 0, height: 0 }, 0.1)).toEqual({ left: 50, top: 50, width: 1, height: 1 });
  });
});

import { describe, expect, it } from 'vitest';
import { decodeSsd } from './detections.ts';

const CLASSES = 90;
const CAT = 16;
const DOG = 17;
const HORSE = 18;
const BICYCLE = 1;

/** Raw outputs for anchors given as [box [ymin, xmin, ymax, xmax], { column: score }]. */
const raw = (anchors: [number[], Record<number, number>][]) => {
  const scores = new Float32Array(anchors.length * CLASSES);
  const boxes = new Float32Array(anchors.length * 4);
  anchors.forEach(([box, byClass], i) => {
    boxes.set(box, i * 4);
    for (const [c, s] of Object.entries(byClass)) scores[i * CLASSES + Number(c)] = s;
  });
  return [scores, boxes] as const;
};

describe('SSDLite output decoding', () => {
  it('turns [ymin, xmin, ymax, xmax] fractions into boxes and score columns into COCO labels', () => {
    const [d] = decodeSsd(...raw([[[0.25, 0.1, 1, 0.5], { [CAT]: 0.9 }]]));
    expect(d.label).toBe('cat');
    expect(d.confidence).toBeCloseTo(0.9);
    expect(d.box.left).toBeCloseTo(0.1);
    expect(d.box.top).toBeCloseTo(0.25);
    expect(d.box.width).toBeCloseTo(0.4);
    expect(d.box.height).toBeCloseTo(0.75);
    expect(decodeSsd(...raw([[[0, 0, 1, 1], { 0: 0.8, [BICYCLE]: 0.6, 89: 0.5 }]])).map((x) => x.label)).toEqual(['person', 'bicycle', 'toothbrush']);
  });

  it('clamps boxes reaching outside the image', () => {
    const [d] = decodeSsd(...raw([[[-0.1, -0.05, 0.5, 1.2], { [DOG]: 0.8 }]]));
    expect(d.label).toBe('dog');
    expect(d.box).toEqual({ left: 0, top: 0, width: 1, height: 0.5 });
  });

  it('drops scores under the floor, ids that name no class and empty boxes', () => {
    const anchors: [number[], Record<number, number>][] = [
      [[0, 0, 0.2, 0.2], { [CAT]: 0.29 }],
      [[0, 0, 0.2, 0.2], { 11: 0.9 }],
      [[0.5, 0.5, 0.5, 0.7], { [HORSE]: 0.9 }],
      [[0, 0, 0.2, 0.2], { [HORSE]: 0.31 }],
    ];
    expect(decodeSsd(...raw(anchors)).map((d) => [d.label, d.confidence])).toEqual([['horse', expect.closeTo(0.31)]]);
    expect(decodeSsd(...raw(anchors), 0.1)).toHaveLength(2);
  });

  it('removes duplicates per class, cats and dogs counting as one class', () => {
    const anchors: [number[], Record<number, number>][] = [
      // the dog beside a bicycle: one box scored cat 0.43 and dog 0.34, the bicycle overlapping it
      [[0.3, 0.3, 0.9, 0.7], { [CAT]: 0.43, [DOG]: 0.34 }],
      [[0.32, 0.31, 0.9, 0.72], { [DOG]: 0.4 }],
      [[0.4, 0.5, 0.9, 1], { [BICYCLE]: 0.46 }],
      // a second animal elsewhere is kept
      [[0, 0, 0.2, 0.2], { [DOG]: 0.6 }],
    ];
    expect(decodeSsd(...raw(anchors)).map((d) => [d.label, Number(d.confidence.toFixed(2))])).toEqual([
      ['dog', 0.6],
      ['bicycle', 0.46],
      ['cat', 0.43],
    ]);
  });
});

import { COCO_LABELS } from './coco-labels.ts';
import type { BoundingBox, Detection } from './port.ts';

/** Detections below this confidence are dropped unless the caller asks for another floor. */
export const DEFAULT_MIN_CONFIDENCE = 0.3;
/** Two boxes of one class overlapping more than this (intersection over union) are one object. */
export const NMS_IOU = 0.5;

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

function iou(a: BoundingBox, b: BoundingBox): number {
  const x1 = Math.max(a.left, b.left);
  const y1 = Math.max(a.top, b.top);
  const x2 = Math.min(a.left + a.width, b.left + b.width);
  const y2 = Math.min(a.top + a.height, b.top + b.height);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * Cats and dogs are one class for duplicate removal: the detector often scores one animal as both
 * (a dog as 'cat' 43 % and 'dog' 34 % on the same box), and which of the two it is gets decided
 * afterwards from the classifier's view of the crop (domain/images/analysis.ts, relabelAnimal).
 */
const duplicateGroup = (label: string): string => (label === 'dog' ? 'cat' : label);

/** Best first; a box overlapping a kept box of its class (cats and dogs counting as one) by more than NMS_IOU is dropped. */
export function removeDuplicates(candidates: Detection[]): Detection[] {
  const sorted = [...candidates].sort((a, b) => b.confidence - a.confidence);
  const kept: Detection[] = [];
  for (const c of sorted) {
    const group = duplicateGroup(c.label);
    if (kept.some((k) => duplicateGroup(k.label) === group && iou(k.box, c.box) > NMS_IOU)) continue;
    kept.push(c);
  }
  return kept;
}

/**
 * SSDLite-MobileNetV2's raw outputs to detections: `scores` [anchors × 90] (sigmoid, COCO ids 1..90
 * in columns 0..89) and `boxes` [anchors × 4] as [ymin, xmin, ymax, xmax] fractions of the input,
 * which is the whole image stretched (so they are fractions of the image). Every (anchor, class)
 * at or above `minConfidence` is a candidate; boxes are clamped to the image, empty ones dropped,
 * duplicates removed (removeDuplicates), best first.
 */
export function decodeSsd(scores: ArrayLike<number>, boxes: ArrayLike<number>, minConfidence = DEFAULT_MIN_CONFIDENCE): Detection[] {
  const classes = COCO_LABELS.length;
  const anchors = Math.min(Math.floor(boxes.length / 4), Math.floor(scores.length / classes));
  const candidates: Detection[] = [];
  for (let i = 0; i < anchors; i++) {
    for (let c = 0; c < classes; c++) {
      const score = scores[i * classes + c];
      const label = COCO_LABELS[c];
      if (!(score >= minConfidence) || label === null) continue;
      const top = clamp01(boxes[i * 4]);
      const left = clamp01(boxes[i * 4 + 1]);
      const bottom = clamp01(boxes[i * 4 + 2]);
      const right = clamp01(boxes[i * 4 + 3]);
      if (!(right > left) || !(bottom > top)) continue;
      candidates.push({ label, confidence: score, box: { left, top, width: right - left, height: bottom - top } });
    }
  }
  return removeDuplicates(candidates);
}

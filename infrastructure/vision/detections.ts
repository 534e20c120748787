import { COCO_LABELS } from './coco-labels.ts';
import type { Frame } from './decode.ts';
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
 * CenterNet's decoded output rows `[x1, y1, x2, y2, score, class]` (pixels of the model input) to
 * detections: boxes as fractions of the image, which sat at `frame` inside the input, clamped to
 * the image, filtered by confidence, duplicates of one class removed (non-maximum suppression),
 * best first.
 */
export function decodeCenterNet(rows: ArrayLike<number>[], frame: Frame, minConfidence = DEFAULT_MIN_CONFIDENCE): Detection[] {
  const candidates: Detection[] = [];
  for (const row of rows) {
    const [x1, y1, x2, y2, score, cls] = [row[0], row[1], row[2], row[3], row[4], row[5]];
    if (!(score >= minConfidence) || !Number.isInteger(cls) || cls < 0 || cls >= COCO_LABELS.length) continue;
    const left = clamp01((x1 - frame.left) / frame.width);
    const top = clamp01((y1 - frame.top) / frame.height);
    const right = clamp01((x2 - frame.left) / frame.width);
    const bottom = clamp01((y2 - frame.top) / frame.height);
    if (right <= left || bottom <= top) continue;
    candidates.push({ label: COCO_LABELS[cls], confidence: score, box: { left, top, width: right - left, height: bottom - top } });
  }
  candidates.sort((a, b) => b.confidence - a.confidence);
  const kept: Detection[] = [];
  for (const c of candidates) {
    if (kept.some((k) => k.label === c.label && iou(k.box, c.box) > NMS_IOU)) continue;
    kept.push(c);
  }
  return kept;
}

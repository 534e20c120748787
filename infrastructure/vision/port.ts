/** Boxes are fractions of the image (0..1), origin top-left — TheCatAPI/Rekognition BoundingBox style. */
export type BoundingBox = { left: number; top: number; width: number; height: number };

/** An animal (or other COCO object) found by the detector. `label` is the COCO class name ('cat', 'dog', 'horse', 'person', ...). */
export type Detection = { label: string; confidence: number; box: BoundingBox };

/** An image-classifier class: ImageNet label (e.g. 'tabby cat'), its index, probability 0..1. */
export type Classification = { label: string; index: number; confidence: number };

/** Safety verdict of the moderation model. `reasons` are human-readable; `labels` are Rekognition-style moderation labels. */
export type SafetyVerdict = {
  unsafe: boolean;
  /** the model's raw class scores, e.g. { nsfw: 0.02, sfw: 0.98 } */
  scores: Record<string, number>;
  reasons: string[];
  labels: { Name: string; Confidence: number; ParentName: string }[];
  threshold: number;
};

/**
 * What the classifier sees in an image or in one region of it: its most probable classes, its
 * probability mass on the ImageNet dog classes (151–268) and domestic cat classes (281–285), and
 * its pooled feature vector (the 1,280 values before the classification layer), L2-normalised:
 * an image embedding (similar photos have a high dot product).
 */
export type ClassifierView = { top: Classification[]; mass: { cat: number; dog: number }; features: Float32Array };

/** Widen a box by this share of its width and height on every side before classifying its crop. */
export const CROP_MARGIN = 0.1;

export type ModelInfo = { task: 'safety' | 'classification' | 'detection'; name: string; version: string; licence: string; source: string };

/**
 * The image models. Every method takes encoded image bytes (JPEG, PNG, WebP, GIF first frame)
 * and runs off the event loop (worker threads); models load once per process, lazily, on first use.
 */
export interface VisionModels {
  moderate(image: Buffer): Promise<SafetyVerdict>;
  classify(image: Buffer, topK?: number): Promise<Classification[]>;
  detect(image: Buffer, options?: { minConfidence?: number }): Promise<Detection[]>;
  /**
   * The classifier on several regions of one image (decoded once): null is the whole image, a box
   * its crop widened by `margin` (default CROP_MARGIN) and made square. One view per region, in order.
   */
  examine(image: Buffer, regions: readonly (BoundingBox | null)[], options?: { topK?: number; margin?: number }): Promise<ClassifierView[]>;
  info(): ModelInfo[];
  close(): Promise<void>;
}

/** Raised when the model files are not installed (e.g. `npm run models` never ran): callers answer analysis_unavailable. */
export class ModelsUnavailableError extends Error {}

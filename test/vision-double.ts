/**
 * TEST ONLY — a deterministic stand-in for the image models (infrastructure/vision/port.ts), so the
 * pipeline's tests do not depend on model files or their timings. It "sees" what the tests draw:
 * - a cat is a patch of orange (255,140,0), a dog a patch of blue (0,64,255), a horse green (0,160,0):
 *   detect() reports one box per colour present (the patch's bounding box, as fractions);
 * - classify() answers the ImageNet class of the largest animal (Siamese cat, golden retriever, sorrel);
 * - examine() does the same on each region (a box's crop, widened as the real models widen it): the
 *   class, the cat/dog mass of that class (0.81 cat, 0.77 dog, none for a horse), and a feature
 *   vector made from the region's mean colour (so same-coloured images are near, L2-normalised);
 * - moderate() flags an image whose pixels are more than 20 % pure red (255,0,0) as unsafe.
 * It can be told to wait or to fail, to test timeouts and crash recovery.
 */
import sharp from 'sharp';
import { cropRegion } from '../infrastructure/vision/decode.ts';
import { CROP_MARGIN, type Classification, type ClassifierView, type Detection, type ModelInfo, type SafetyVerdict, type VisionModels } from '../infrastructure/vision/port.ts';

export const CAT_RGB = { r: 255, g: 140, b: 0 };
export const DOG_RGB = { r: 0, g: 64, b: 255 };
export const HORSE_RGB = { r: 0, g: 160, b: 0 };
export const UNSAFE_RGB = { r: 255, g: 0, b: 0 };

const MARKERS: { label: string; rgb: { r: number; g: number; b: number } }[] = [
  { label: 'cat', rgb: CAT_RGB },
  { label: 'dog', rgb: DOG_RGB },
  { label: 'horse', rgb: HORSE_RGB },
];
const CLASSES: Record<string, Classification> = {
  cat: { label: 'Siamese cat, Siamese', index: 284, confidence: 0.81 },
  dog: { label: 'golden retriever', index: 207, confidence: 0.77 },
  horse: { label: 'sorrel', index: 339, confidence: 0.7 },
};

const close = (data: Buffer, offset: number, rgb: { r: number; g: number; b: number }) =>
  Math.abs(data[offset] - rgb.r) < 40 && Math.abs(data[offset + 1] - rgb.g) < 40 && Math.abs(data[offset + 2] - rgb.b) < 40;

type Found = { label: string; pixels: number; box: { left: number; top: number; width: number; height: number } };

const scan = async (image: Buffer): Promise<{ found: Found[]; redShare: number }> => {
  const { data, info } = await sharp(image, { animated: false }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const bounds = MARKERS.map(() => ({ minX: Infinity, minY: Infinity, maxX: -1, maxY: -1, pixels: 0 }));
  let red = 0;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const offset = (y * info.width + x) * info.channels;
      if (close(data, offset, UNSAFE_RGB)) red++;
      MARKERS.forEach((marker, index) => {
        if (!close(data, offset, marker.rgb)) return;
        const b = bounds[index];
        b.pixels++;
        b.minX = Math.min(b.minX, x);
        b.minY = Math.min(b.minY, y);
        b.maxX = Math.max(b.maxX, x);
        b.maxY = Math.max(b.maxY, y);
      });
    }
  }
  const found = MARKERS.flatMap((marker, index) => {
    const b = bounds[index];
    if (b.pixels < (info.width * info.height) / 200) return [];
    return [
      {
        label: marker.label,
        pixels: b.pixels,
        box: { left: b.minX / info.width, top: b.minY / info.height, width: (b.maxX - b.minX + 1) / info.width, height: (b.maxY - b.minY + 1) / info.height },
      },
    ];
  });
  return { found, redShare: red / (info.width * info.height) };
};

export type VisionDouble = VisionModels & {
  calls: { moderate: number; classify: number; detect: number; examine: number };
  /** Each call waits this long first (ms). */
  delayMs: number;
  /** The next `failNext` calls throw (a crash of the model step). */
  failNext: number;
  /** While set, every call waits for this promise first (hold the pipeline mid-image). */
  gate: Promise<void> | null;
};

export const visionDouble = (): VisionDouble => {
  const before = async (double: VisionDouble) => {
    if (double.gate) await double.gate;
    if (double.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, double.delayMs));
    if (double.failNext > 0) {
      double.failNext--;
      throw new Error('vision double: told to fail');
    }
  };
  const double: VisionDouble = {
    calls: { moderate: 0, classify: 0, detect: 0, examine: 0 },
    delayMs: 0,
    failNext: 0,
    gate: null,
    async moderate(image): Promise<SafetyVerdict> {
      double.calls.moderate++;
      await before(double);
      const { redShare } = await scan(image);
      const unsafe = redShare > 0.2;
      return {
        unsafe,
        scores: { unsafe: redShare, safe: 1 - redShare },
        reasons: unsafe ? [`test double: ${(redShare * 100).toFixed(0)} % red pixels`] : [],
        labels: unsafe ? [{ Name: 'Test Red', Confidence: Math.round(redShare * 100), ParentName: 'Test' }] : [],
        threshold: 0.2,
      };
    },
    async classify(image, topK = 5): Promise<Classification[]> {
      double.calls.classify++;
      await before(double);
      const { found } = await scan(image);
      const largest = [...found].sort((a, b) => b.pixels - a.pixels)[0];
      return (largest ? [CLASSES[largest.label]] : [{ label: 'envelope', index: 549, confidence: 0.4 }]).slice(0, topK);
    },
    async detect(image, options = {}): Promise<Detection[]> {
      double.calls.detect++;
      await before(double);
      const { found } = await scan(image);
      // Bigger patches are more confident: 0.7 + their share of the picture (deterministic, never ties in the tests).
      return found.map((item) => ({ label: item.label, confidence: Math.min(0.99, 0.7 + item.box.width * item.box.height), box: item.box })).filter((d) => d.confidence >= (options.minConfidence ?? 0));
    },
    async examine(image, regions, options = {}): Promise<ClassifierView[]> {
      double.calls.examine++;
      await before(double);
      const meta = await sharp(image).metadata();
      const views: ClassifierView[] = [];
      for (const box of regions) {
        const region = box ? await sharp(image).extract(cropRegion(meta.width ?? 1, meta.height ?? 1, box, options.margin ?? CROP_MARGIN)).png().toBuffer() : image;
        const { found } = await scan(region);
        const largest = [...found].sort((a, b) => b.pixels - a.pixels)[0];
        const top = largest ? CLASSES[largest.label] : { label: 'envelope', index: 549, confidence: 0.4 };
        const mass = { cat: top.index === 284 ? top.confidence : 0.01, dog: top.index === 207 ? top.confidence : 0.01 };
        const { channels } = await sharp(region).stats();
        const features = new Float32Array(1280);
        channels.slice(0, 3).forEach((channel, c) => features.fill(channel.mean + 1, c * 400, (c + 1) * 400));
        const norm = Math.hypot(...features);
        views.push({ top: [top].slice(0, options.topK ?? 5), mass, features: features.map((v) => v / norm) });
      }
      return views;
    },
    info(): ModelInfo[] {
      return [
        { task: 'safety', name: 'test-double-safety', version: '1', licence: 'test', source: 'test/vision-double.ts' },
        { task: 'classification', name: 'test-double-classifier', version: '1', licence: 'test', source: 'test/vision-double.ts' },
        { task: 'detection', name: 'test-double-detector', version: '1', licence: 'test', source: 'test/vision-double.ts' },
      ];
    },
    async close() {},
  };
  return double;
};

/** A test photo: grey background with coloured patches (see the markers above) at pixel boxes. */
export const drawScene = async (
  width: number,
  height: number,
  patches: { rgb: { r: number; g: number; b: number }; left: number; top: number; width: number; height: number }[],
  format: 'jpeg' | 'png' | 'webp' | 'gif' = 'jpeg',
): Promise<Buffer> => {
  const composite = await Promise.all(
    patches.map(async (patch) => ({
      input: await sharp({ create: { width: patch.width, height: patch.height, channels: 3, background: patch.rgb } }).png().toBuffer(),
      left: patch.left,
      top: patch.top,
    })),
  );
  const base = sharp({ create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } } }).composite(composite);
  return base[format]().toBuffer();
};

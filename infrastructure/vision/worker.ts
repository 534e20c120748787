/**
 * The inference worker (a worker thread; see index.ts). It holds the three models — safety,
 * classification and detection, all ONNX on onnxruntime-node, one intra-op thread each. Each model
 * is loaded on the first task that needs it and kept for the worker's life. Tasks run one at a
 * time, in arrival order.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { decodeForOpenNsfw, decodeRegions, decodeRgb } from './decode.ts';
import { decodeSsd } from './detections.ts';
import { CAT_CLASSES, DOG_CLASSES } from './imagenet-species.ts';
import type { BoundingBox, Classification, ClassifierView, Detection } from './port.ts';

/** Every worker runs every model, each loaded on its first task. */
export type WorkerKind = 'inference';
/** `classifierFile`: the classification model's ONNX file in the manifest, relative to `modelDir`. */
export type WorkerData = { kind: WorkerKind; modelDir: string; classifierFile: string; nice: number };
export type Task =
  | { id: number; op: 'moderate'; image: Uint8Array }
  | { id: number; op: 'classify'; image: Uint8Array; topK: number }
  | { id: number; op: 'detect'; image: Uint8Array; minConfidence: number }
  | { id: number; op: 'examine'; image: Uint8Array; regions: (BoundingBox | null)[]; topK: number; margin: number };
export type TaskBody = Task extends infer T ? (T extends Task ? Omit<T, 'id'> : never) : never;
export type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

const { modelDir, classifierFile, nice } = workerData as WorkerData;

/**
 * Inference is background work: this thread (and the threads the runtimes start from it, which
 * inherit it) runs at a lower priority, so on a busy machine the requests the process serves go
 * first. Linux keeps a nice value per thread: `/proc/thread-self` names this thread's id.
 */
if (nice > 0) {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not allowed: inference runs at the process's priority
  }
}

type Ort = typeof import('onnxruntime-node');

let ort: Ort | null = null;
async function onnx(): Promise<Ort> {
  if (!ort) {
    const m = (await import('onnxruntime-node')) as Ort & { default?: Ort };
    ort = m.InferenceSession ? m : (m.default as Ort);
  }
  return ort;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= load().catch((err) => { p = null; throw err; }));
}

// 'all' graph optimisations: the blocked (NCHWc) layouts and fusions of the 'all' level cut CPU per
// image by a third to a half against 'basic' (measured one thread: safety 31 → 23 ms, classifier
// 27 → 12 ms, detector 39 → 23 ms) for prepacked copies of the weights (≈ 15–30 MB per model).
const sessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', enableCpuMemArena: false, enableMemPattern: false } as const;

const safetyModel = once(async () => {
  const o = await onnx();
  return o.InferenceSession.create(join(modelDir, 'safety/open-nsfw.onnx'), sessionOptions);
});

/**
 * The EfficientNet-Lite classifier (scripts/models/efficientnet_lite0_to_onnx.py): input NCHW RGB
 * `(x − 127) / 128` at the square size the export fixed (224 for Lite0, 260 for Lite2), read from
 * the model's own input shape.
 */
const classifierModel = once(async () => {
  const o = await onnx();
  const session = await o.InferenceSession.create(join(modelDir, classifierFile), sessionOptions);
  const input = session.inputMetadata[0];
  const size = input?.isTensor ? input.shape[3] : undefined;
  if (typeof size !== 'number' || !(size > 0) || (input.isTensor && input.shape[2] !== size)) {
    throw new Error(`${classifierFile}: expected a square NCHW input of fixed size`);
  }
  const classes = JSON.parse(readFileSync(join(modelDir, 'classification/imagenet-classes.json'), 'utf8')) as string[];
  return { session, size, labels: classes.map((c) => c.split(',')[0].trim()) };
});

/**
 * SSDLite-MobileNetV2 (TensorFlow object detection API export), converted to ONNX without its
 * resize loop and its non-maximum suppression (scripts/models/tfjs_ssd_to_onnx.py): the input is
 * the image as the model's own preprocessing makes it — stretched to 300 × 300, x · 2/255 − 1,
 * NHWC — and the outputs are the sigmoid scores of the 90 COCO ids and the decoded boxes, which
 * detections.ts turns into detections.
 */
const DETECTOR_INPUT = 300;
const detectorModel = once(async () => {
  const o = await onnx();
  return o.InferenceSession.create(join(modelDir, 'detection/ssdlite-mobilenetv2.onnx'), sessionOptions);
});

async function moderate(image: Uint8Array) {
  const o = await onnx();
  const session = await safetyModel();
  const bgr = await decodeForOpenNsfw(image);
  const x = new Float32Array(224 * 224 * 3);
  for (let i = 0; i < 224 * 224; i++) {
    x[i * 3] = bgr[i * 3 + 2] - 104;
    x[i * 3 + 1] = bgr[i * 3 + 1] - 117;
    x[i * 3 + 2] = bgr[i * 3] - 123;
  }
  const out = await session.run({ [session.inputNames[0]]: new o.Tensor('float32', x, [1, 224, 224, 3]) });
  const [sfw, nsfw] = out[session.outputNames[0]].data as Float32Array;
  return { sfw, nsfw };
}

/** The classifier on one RGB input of its size (`classifierSize()`): class probabilities and the pooled features. */
async function runClassifier(rgb: Buffer): Promise<{ p: Float32Array; features: Float32Array; labels: string[] }> {
  const o = await onnx();
  const { session, size, labels } = await classifierModel();
  const plane = size * size;
  if (rgb.length !== plane * 3) throw new Error(`classifier input of ${rgb.length} bytes, expected ${size}² RGB`);
  const x = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) x[c * plane + i] = (rgb[i * 3 + c] - 127) / 128;
  }
  const out = await session.run({ input: new o.Tensor('float32', x, [1, 3, size, size]) });
  return { p: out.probabilities.data as Float32Array, features: out.features.data as Float32Array, labels };
}

const classifierSize = async (): Promise<number> => (await classifierModel()).size;

const topClasses = (p: Float32Array, labels: string[], topK: number): Classification[] =>
  Array.from(p.keys()).sort((a, b) => p[b] - p[a]).slice(0, topK).map((index) => ({ label: labels[index], index, confidence: p[index] }));

const massOf = (p: Float32Array, range: { first: number; last: number }): number => {
  let sum = 0;
  for (let i = range.first; i <= range.last; i++) sum += p[i];
  return Math.min(1, sum);
};

async function classify(image: Uint8Array, topK: number): Promise<Classification[]> {
  const size = await classifierSize();
  const { p, labels } = await runClassifier(await decodeRgb(image, size, size, 'cover'));
  return topClasses(p, labels, topK);
}

async function examine(image: Uint8Array, regions: (BoundingBox | null)[], topK: number, margin: number): Promise<ClassifierView[]> {
  const inputs = await decodeRegions(image, regions, await classifierSize(), margin);
  const views: ClassifierView[] = [];
  for (const rgb of inputs) {
    const { p, features, labels } = await runClassifier(rgb);
    let norm = 0;
    for (const v of features) norm += v * v;
    norm = Math.sqrt(norm) || 1;
    views.push({
      top: topClasses(p, labels, topK),
      mass: { cat: massOf(p, CAT_CLASSES), dog: massOf(p, DOG_CLASSES) },
      features: Float32Array.from(features, (v) => v / norm),
    });
  }
  return views;
}

async function detect(image: Uint8Array, minConfidence: number): Promise<Detection[]> {
  const o = await onnx();
  const session = await detectorModel();
  const rgb = await decodeRgb(image, DETECTOR_INPUT, DETECTOR_INPUT, 'fill');
  const x = new Float32Array(rgb.length);
  for (let i = 0; i < rgb.length; i++) x[i] = rgb[i] * (2 / 255) - 1;
  const out = await session.run({ input: new o.Tensor('float32', x, [1, DETECTOR_INPUT, DETECTOR_INPUT, 3]) });
  return decodeSsd(out.scores.data as Float32Array, out.boxes.data as Float32Array, minConfidence);
}

async function run(task: Task): Promise<unknown> {
  switch (task.op) {
    case 'moderate': return moderate(task.image);
    case 'classify': return classify(task.image, task.topK);
    case 'detect': return detect(task.image, task.minConfidence);
    case 'examine': return examine(task.image, task.regions, task.topK, task.margin);
  }
}

let queue: Promise<void> = Promise.resolve();
parentPort!.on('message', (task: Task) => {
  queue = queue.then(async () => {
    let reply: Reply;
    try {
      reply = { id: task.id, ok: true, result: await run(task) };
    } catch (err) {
      const e = err as Error;
      reply = { id: task.id, ok: false, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err) } };
    }
    parentPort!.postMessage(reply);
  });
});

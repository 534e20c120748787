/**
 * The inference worker (a worker thread; see index.ts). One worker holds either the ONNX models
 * (safety, classification: onnxruntime-node, one intra-op thread each) or the TensorFlow.js
 * detector (wasm backend). Each model is loaded on the first task that needs it and kept for the
 * worker's life. Tasks run one at a time, in arrival order.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { decodeForOpenNsfw, decodeRegions, decodeRgb } from './decode.ts';
import { decodeSsd } from './detections.ts';
import { CAT_CLASSES, DOG_CLASSES } from './imagenet-species.ts';
import type { BoundingBox, Classification, ClassifierView, Detection } from './port.ts';

/** Every worker runs every model (ONNX and TensorFlow.js), each loaded on its first task. */
export type WorkerKind = 'inference';
export type WorkerData = { kind: WorkerKind; modelDir: string; nice: number; wasmDir: string };
export type Task =
  | { id: number; op: 'moderate'; image: Uint8Array }
  | { id: number; op: 'classify'; image: Uint8Array; topK: number }
  | { id: number; op: 'detect'; image: Uint8Array; minConfidence: number }
  | { id: number; op: 'examine'; image: Uint8Array; regions: (BoundingBox | null)[]; topK: number; margin: number };
export type TaskBody = Task extends infer T ? (T extends Task ? Omit<T, 'id'> : never) : never;
export type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

const { modelDir, nice, wasmDir } = workerData as WorkerData;

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
// tfjs-core and tfjs-converter only: the `@tensorflow/tfjs` bundle also loads layers, data and the
// cpu and webgl backends (≈ 35 MB more per worker for nothing a graph model on wasm uses)
type Tf = typeof import('@tensorflow/tfjs-core') & typeof import('@tensorflow/tfjs-converter');

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

// 'basic' graph optimisations (constant folding, redundant nodes): the extended fusions of 'all'
// keep prepacked copies of the weights (≈ 27 MB more for the two models) for a few % of speed.
const sessionOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'basic', enableCpuMemArena: false, enableMemPattern: false } as const;

const safetyModel = once(async () => {
  const o = await onnx();
  return o.InferenceSession.create(join(modelDir, 'safety/open-nsfw.onnx'), sessionOptions);
});

const classifierModel = once(async () => {
  const o = await onnx();
  const session = await o.InferenceSession.create(join(modelDir, 'classification/efficientnet-lite0.onnx'), sessionOptions);
  const classes = JSON.parse(readFileSync(join(modelDir, 'classification/imagenet-classes.json'), 'utf8')) as string[];
  return { session, labels: classes.map((c) => c.split(',')[0].trim()) };
});

/**
 * SSDLite-MobileNetV2 (TensorFlow object detection API export). Its graph starts with a resize
 * loop (dynamic control flow, which would need executeAsync): the input is fed after it instead,
 * at 'Preprocessor/sub', as the model's own preprocessing makes it — the image stretched to
 * 300 × 300, x · 2/255 − 1 — and read before the model's non-maximum suppression (sigmoid scores of
 * the 90 COCO ids, decoded boxes), which detections.ts does.
 */
const DETECTOR_INPUT = 300;
const DETECTOR_DIR = 'detection/ssdlite-mobilenetv2';
const detectorModel = once(async () => {
  const tf = { ...(await import('@tensorflow/tfjs-core')), ...(await import('@tensorflow/tfjs-converter')) } as Tf;
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js wasm backend did not start');
  await tf.ready();
  const json = JSON.parse(readFileSync(join(modelDir, DETECTOR_DIR, 'model.json'), 'utf8')) as {
    modelTopology: object;
    weightsManifest: { paths: string[]; weights: unknown[] }[];
  };
  const bin = Buffer.concat(json.weightsManifest.flatMap((group) => group.paths.map((path) => readFileSync(join(modelDir, DETECTOR_DIR, path)))));
  const weightData = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength) as ArrayBuffer;
  const model = await tf.loadGraphModel({
    load: async () => ({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((m) => m.weights) as import('@tensorflow/tfjs-core').io.WeightsManifestEntry[],
      weightData,
    }),
  });
  return { tf, model };
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

/** EfficientNet-Lite0 on one 224 × 224 RGB input: class probabilities and the pooled features. */
async function runClassifier(rgb: Buffer): Promise<{ p: Float32Array; features: Float32Array; labels: string[] }> {
  const o = await onnx();
  const { session, labels } = await classifierModel();
  const plane = 224 * 224;
  const x = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) x[c * plane + i] = (rgb[i * 3 + c] - 127) / 128;
  }
  const out = await session.run({ input: new o.Tensor('float32', x, [1, 3, 224, 224]) });
  return { p: out.probabilities.data as Float32Array, features: out.features.data as Float32Array, labels };
}

const topClasses = (p: Float32Array, labels: string[], topK: number): Classification[] =>
  Array.from(p.keys()).sort((a, b) => p[b] - p[a]).slice(0, topK).map((index) => ({ label: labels[index], index, confidence: p[index] }));

const massOf = (p: Float32Array, range: { first: number; last: number }): number => {
  let sum = 0;
  for (let i = range.first; i <= range.last; i++) sum += p[i];
  return Math.min(1, sum);
};

async function classify(image: Uint8Array, topK: number): Promise<Classification[]> {
  const { p, labels } = await runClassifier(await decodeRgb(image, 224, 224, 'cover'));
  return topClasses(p, labels, topK);
}

async function examine(image: Uint8Array, regions: (BoundingBox | null)[], topK: number, margin: number): Promise<ClassifierView[]> {
  const inputs = await decodeRegions(image, regions, 224, margin);
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
  const { tf, model } = await detectorModel();
  const rgb = await decodeRgb(image, DETECTOR_INPUT, DETECTOR_INPUT, 'fill');
  const x = new Float32Array(rgb.length);
  for (let i = 0; i < rgb.length; i++) x[i] = rgb[i] * (2 / 255) - 1;
  const [scores, boxes] = tf.tidy(() => {
    const input = tf.tensor4d(x, [1, DETECTOR_INPUT, DETECTOR_INPUT, 3]);
    return model.execute({ 'Preprocessor/sub': input }, ['Postprocessor/Slice', 'Postprocessor/ExpandDims_1']) as import('@tensorflow/tfjs-core').Tensor[];
  });
  try {
    return decodeSsd(await scores.data(), await boxes.data(), minConfidence);
  } finally {
    scores.dispose();
    boxes.dispose();
  }
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

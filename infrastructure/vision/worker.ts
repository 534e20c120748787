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
import { decodeForOpenNsfw, decodeLetterboxed, decodeRgb } from './decode.ts';
import { decodeCenterNet } from './detections.ts';
import type { Classification, Detection } from './port.ts';

/** Every worker runs every model (ONNX and TensorFlow.js), each loaded on its first task. */
export type WorkerKind = 'inference';
export type WorkerData = { kind: WorkerKind; modelDir: string; nice: number; wasmDir: string };
export type Task =
  | { id: number; op: 'moderate'; image: Uint8Array }
  | { id: number; op: 'classify'; image: Uint8Array; topK: number }
  | { id: number; op: 'detect'; image: Uint8Array; minConfidence: number };
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

const DETECTOR_INPUT = 512;
const DETECTOR_MARGIN = 0.1;
const detectorModel = once(async () => {
  const tf = { ...(await import('@tensorflow/tfjs-core')), ...(await import('@tensorflow/tfjs-converter')) } as Tf;
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : `${wasmDir}/`);
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js wasm backend did not start');
  await tf.ready();
  const json = JSON.parse(readFileSync(join(modelDir, 'detection/centernet.json'), 'utf8'));
  const bin = readFileSync(join(modelDir, 'detection/centernet.bin'));
  const weightData = bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength) as ArrayBuffer;
  const model = await tf.loadGraphModel({
    load: async () => ({
      modelTopology: json.modelTopology,
      weightSpecs: json.weightsManifest.flatMap((m: { weights: unknown[] }) => m.weights),
      weightData,
      format: json.format,
      generatedBy: json.generatedBy,
      convertedBy: json.convertedBy,
      signature: json.signature,
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

async function classify(image: Uint8Array, topK: number): Promise<Classification[]> {
  const o = await onnx();
  const { session, labels } = await classifierModel();
  const rgb = await decodeRgb(image, 224, 224, 'cover');
  const plane = 224 * 224;
  const x = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    for (let c = 0; c < 3; c++) x[c * plane + i] = (rgb[i * 3 + c] - 127) / 128;
  }
  const out = await session.run({ input: new o.Tensor('float32', x, [1, 3, 224, 224]) });
  const p = out.probabilities.data as Float32Array;
  const order = Array.from(p.keys()).sort((a, b) => p[b] - p[a]).slice(0, topK);
  return order.map((index) => ({ label: labels[index], index, confidence: p[index] }));
}

async function detect(image: Uint8Array, minConfidence: number): Promise<Detection[]> {
  const { tf, model } = await detectorModel();
  const { rgb, frame } = await decodeLetterboxed(image, DETECTOR_INPUT, DETECTOR_MARGIN);
  const rows = tf.tidy(() => {
    const input = tf.tensor4d(Float32Array.from(rgb), [1, DETECTOR_INPUT, DETECTOR_INPUT, 3]);
    const out = model.execute(input, 'tower_0/detections') as import('@tensorflow/tfjs-core').Tensor;
    return out.arraySync() as number[][][];
  });
  return decodeCenterNet(rows[0], frame, minConfidence);
}

async function run(task: Task): Promise<unknown> {
  switch (task.op) {
    case 'moderate': return moderate(task.image);
    case 'classify': return classify(task.image, task.topK);
    case 'detect': return detect(task.image, task.minConfidence);
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

/**
 * The image models behind the VisionModels port (port.ts): open_nsfw (safety), EfficientNet-Lite0
 * (classification, crops and embeddings) and SSDLite-MobileNetV2 (detection), all three ONNX on
 * onnxruntime-node. Model files come from `npm run models` (scripts/models/, into MODELS_DIR).
 * Another runtime is another implementation of the port (hosted.ts is one for detection).
 *
 * Nothing loads until the first call: `openVisionModels()` only records the options. The first
 * call reads the manifest (ModelsUnavailableError if the models are not installed) and starts the
 * inference worker thread, which loads each model once, on its first task, and keeps it.
 * Inference never runs on the caller's event loop.
 */
import { Worker } from 'node:worker_threads';
import { ImageDecodeError } from './decode.ts';
import { DEFAULT_MIN_CONFIDENCE } from './detections.ts';
import { classifierFile, readManifest, resolveModelDir, type ModelManifest } from './model-files.ts';
import { CROP_MARGIN, ModelsUnavailableError, type BoundingBox, type Classification, type ClassifierView, type Detection, type ModelInfo, type SafetyVerdict, type VisionModels } from './port.ts';
import { DEFAULT_SAFETY_THRESHOLD, safetyVerdict } from './safety.ts';
import type { Reply, Task, TaskBody, WorkerData, WorkerKind } from './worker.ts';
import { workerModule } from './worker-module.ts';

export * from './port.ts';
export { ImageDecodeError } from './decode.ts';
export { fixturePath, resolveModelDir } from './model-files.ts';
export { DEFAULT_SAFETY_THRESHOLD, REVIEW_FLOOR } from './safety.ts';
export { DEFAULT_MIN_CONFIDENCE } from './detections.ts';
export { imagenetBreed, imagenetSpecies, IMAGENET_BREEDS, type ImagenetBreed, type SpeciesId } from './imagenet-species.ts';

export type VisionOptions = {
  /** the folder `npm run models` wrote (default: env MODELS_DIR, else `.models/` at the repository root) */
  modelDir?: string;
  /** worker threads per runtime (default 1); each holds its own copy of its models */
  threads?: number;
  /** open_nsfw score from which an image is unsafe (default 0.8) */
  safetyThreshold?: number;
  /** a task that takes longer fails and its worker is replaced (default 120 s: a first call includes loading) */
  taskTimeoutMs?: number;
  /**
   * nice value of the inference threads (default env VISION_NICE, else 10; 0 keeps the process's
   * priority): inference is background work and yields the cores to the requests of its process
   */
  nice?: number;
};

export class VisionTaskTimeoutError extends Error {
  override name = 'VisionTaskTimeoutError';
}

type Job = { task: TaskBody; resolve: (v: unknown) => void; reject: (e: Error) => void };
type Slot = { worker: Worker; job: (Job & { id: number; timer: NodeJS.Timeout }) | null };

/**
 * Up to `size` workers of one runtime. Jobs wait here in arrival order and go to a worker only when
 * it is idle, so the timeout measures a job's own run, not the queue in front of it.
 */
class WorkerPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private seq = 0;
  private closed = false;

  constructor(
    private readonly kind: WorkerKind,
    private readonly size: number,
    private readonly modelDir: string,
    private readonly classifierFile: string,
    private readonly timeoutMs: number,
    private readonly nice: number,
    private readonly module: URL,
  ) {}

  run<T>(task: TaskBody): Promise<T> {
    if (this.closed) return Promise.reject(new Error('vision models are closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ task, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.size) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (!slot) return;
      const job = this.queue.shift()!;
      const id = ++this.seq;
      const timer = setTimeout(() => {
        this.discard(slot, new VisionTaskTimeoutError(`${job.task.op} took longer than ${this.timeoutMs} ms; its worker was replaced`));
      }, this.timeoutMs);
      slot.job = { ...job, id, timer };
      slot.worker.ref(); // an idle worker does not keep the process alive; a busy one does
      // the image bytes move to the worker instead of being copied
      slot.worker.postMessage({ ...job.task, id } as Task, [job.task.image.buffer as ArrayBuffer]);
    }
  }

  private spawn(): Slot {
    const data: WorkerData = { kind: this.kind, modelDir: this.modelDir, classifierFile: this.classifierFile, nice: this.nice };
    const worker = new Worker(this.module, { workerData: data, stdout: false, stderr: false });
    const slot: Slot = { worker, job: null };
    worker.on('message', (reply: Reply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      clearTimeout(job.timer);
      slot.job = null;
      worker.unref();
      if (reply.ok) job.resolve(reply.result);
      else job.reject(toError(reply.error));
      this.dispatch();
    });
    worker.on('error', (err) => this.discard(slot, err));
    worker.on('exit', (code) => this.discard(slot, new Error(`vision worker exited with code ${code}`)));
    worker.unref();
    return slot;
  }

  /** Drops a broken or stuck worker: its job fails, the queue goes on with a new worker. */
  private discard(slot: Slot, err: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    if (slot.job) {
      clearTimeout(slot.job.timer);
      slot.job.reject(err);
      slot.job = null;
    }
    void slot.worker.terminate().catch(() => undefined);
    if (!this.closed) this.dispatch();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('vision models are closed'));
    const slots = this.slots.splice(0);
    await Promise.all(slots.map(async (s) => {
      if (s.job) {
        clearTimeout(s.job.timer);
        s.job.reject(new Error('vision models are closed'));
        s.job = null;
      }
      await s.worker.terminate();
    }));
  }
}

function toError(e: { name: string; message: string }): Error {
  if (e.name === 'ImageDecodeError') return new ImageDecodeError(e.message);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/** Copies the bytes into a fresh ArrayBuffer of their own (the caller's Buffer may be a view of a shared pool), to hand to the worker. */
function ownBytes(image: Buffer): Uint8Array {
  if (!((image as unknown) instanceof Uint8Array)) throw new TypeError('image must be a Buffer');
  return new Uint8Array(image);
}

export function openVisionModels(options: VisionOptions = {}): VisionModels {
  const modelDir = resolveModelDir(options.modelDir);
  const threads = Math.max(1, Math.floor(options.threads ?? 1));
  const threshold = options.safetyThreshold ?? DEFAULT_SAFETY_THRESHOLD;
  const timeoutMs = options.taskTimeoutMs ?? 120_000;
  const nice = Math.max(0, Math.min(19, Math.floor(options.nice ?? Number(process.env.VISION_NICE ?? 10))));
  if (!Number.isFinite(nice)) throw new Error('VISION_NICE must be a number from 0 to 19');
  let manifest: ModelManifest | null = null;
  // One pool for all three models: a second worker (one per runtime) cost a V8 isolate and a copy
  // of the worker module (≈ 23 MiB) for little, since each worker runs one inference at a time anyway.
  const pools = new Map<WorkerKind, WorkerPool>();
  let closed = false;

  const ready = (): ModelManifest => (manifest ??= readManifest(modelDir));
  const pool = async (kind: WorkerKind): Promise<WorkerPool> => {
    if (closed) throw new Error('vision models are closed');
    const classifier = classifierFile(ready());
    const module = await workerModule();
    if (closed) throw new Error('vision models are closed');
    let p = pools.get(kind);
    if (!p) pools.set(kind, (p = new WorkerPool(kind, threads, modelDir, classifier, timeoutMs, nice, module)));
    return p;
  };
  const call = async <T>(task: TaskBody): Promise<T> => (await pool('inference')).run<T>(task);

  return {
    async moderate(image: Buffer): Promise<SafetyVerdict> {
      const scores = await call<{ sfw: number; nsfw: number }>( { op: 'moderate', image: ownBytes(image) });
      return safetyVerdict(scores, threshold);
    },
    async classify(image: Buffer, topK = 5): Promise<Classification[]> {
      const k = Number.isFinite(topK) ? Math.min(1000, Math.max(1, Math.floor(topK))) : 5;
      return call<Classification[]>( { op: 'classify', image: ownBytes(image), topK: k });
    },
    async detect(image: Buffer, opts?: { minConfidence?: number }): Promise<Detection[]> {
      const minConfidence = opts?.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
      return call<Detection[]>( { op: 'detect', image: ownBytes(image), minConfidence });
    },
    async examine(image: Buffer, regions: readonly (BoundingBox | null)[], opts?: { topK?: number; margin?: number }): Promise<ClassifierView[]> {
      const topK = Number.isFinite(opts?.topK) ? Math.min(1000, Math.max(1, Math.floor(opts!.topK!))) : 5;
      const margin = Number.isFinite(opts?.margin) ? Math.min(1, Math.max(0, opts!.margin!)) : CROP_MARGIN;
      if (regions.length === 0) return [];
      return call<ClassifierView[]>({ op: 'examine', image: ownBytes(image), regions: regions.map((r) => (r ? { left: r.left, top: r.top, width: r.width, height: r.height } : null)), topK, margin });
    },
    info(): ModelInfo[] {
      try {
        return ready().models.map(({ task, name, version, licence, source }) => ({ task, name, version, licence, source }));
      } catch (err) {
        if (err instanceof ModelsUnavailableError) return [];
        throw err;
      }
    },
    async close(): Promise<void> {
      closed = true;
      await Promise.all([...pools.values()].map((p) => p.close()));
      pools.clear();
    },
  };
}

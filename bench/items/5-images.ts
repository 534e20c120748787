import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { cpuMeter } from '../harness/cpu.ts';
import { figure, notAvailable } from '../harness/figure.ts';
import { load, loadProblems, warmUp } from '../harness/load.ts';
import type { BenchItem, Figure } from '../harness/types.ts';

const CONNECTIONS = 4;
/** Statuses an image ends the pipeline in. */
const FINAL = new Set(['labelled', 'unsafe']);
/** How long the pipeline may take to work through the run's uploads. */
const DRAIN_TIMEOUT_MS = 600_000;
/** The service's own thread pool and the baseline's in-flight calls: the same parallelism. */
const BASELINE_CONCURRENCY = 4;

/** A 1-megapixel photo-like JPEG (1000×1000: a gradient with noise, so it compresses like a photo). */
const photo = async (): Promise<Buffer> => {
  const side = 1000;
  const pixels = Buffer.alloc(side * side * 3);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i += 3) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const noise = (seed >>> 24) % 48;
    const x = (i / 3) % side;
    const y = Math.floor(i / 3 / side);
    pixels[i] = Math.min(255, (x * 255) / side + noise);
    pixels[i + 1] = Math.min(255, (y * 255) / side + noise);
    pixels[i + 2] = Math.min(255, 128 + noise);
  }
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
};

/** Raw sharp on the same file, in this process: decode + resize (to the `med` 640 px size) + encode, per second. */
const rawSharpPerSecond = async (jpeg: Buffer, durationS: number): Promise<number> => {
  const deadline = performance.now() + durationS * 1000;
  let done = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await sharp(jpeg).resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: BASELINE_CONCURRENCY }, worker));
  return done / ((performance.now() - started) / 1000);
};

/**
 * 5. Image uploads of a 1-megapixel JPEG per second against raw sharp decode + resize + encode of
 * the same file per second, in the same run. The service's upload does more image work than the
 * baseline (type check, polyglot scan, one full decode, four encoded sizes) and stores five blobs,
 * an event and a quota reservation. With the image models wired in, upload-sync is measured end to
 * end too, and the model/pipeline time is reported as its own line (upload-sync latency minus
 * upload latency); without them upload-sync answers 503 and that line says so.
 */
export const item: BenchItem = {
  name: '5 images',
  target: 'image uploads of a 1 Mpx JPEG ≥ 0.5× raw sharp decode + resize + encode (the service work around sharp; upload-sync with the models on lines of its own); peak RSS ≤ 512 MiB',
  async available(ctx) {
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const response = await ctx.request('POST', '/v1/images/upload', { key: ctx.accounts.a.api_key, body: { type: 'base64', image: tiny.toString('base64') } });
    return response.status === 201 ? null : `POST /v1/images/upload answers ${response.status}: not available yet`;
  },
  async run(ctx) {
    const account = ctx.accounts.a;
    const quota = await ctx.request('PUT', `/v1/accounts/${account.account_id}/quota`, { key: ctx.service.adminKey, body: { imageUploadQuota: 10_000_000 } });
    if (quota.status !== 200) throw new Error(`setting the bench quota failed: ${quota.status}`);
    const jpeg = await photo();
    const body = JSON.stringify({ type: 'base64', image: jpeg.toString('base64'), sub_id: 'bench' });
    const headers = { 'x-api-key': account.api_key, 'content-type': 'application/json' };
    const upload = { url: `${ctx.service.url}/v1/images/upload`, method: 'POST' as const, headers, body, connections: CONNECTIONS };

    await rawSharpPerSecond(jpeg, ctx.warmupS);
    const baseline = await rawSharpPerSecond(jpeg, ctx.durationS);

    await warmUp(upload, ctx.warmupS);
    const cpu = cpuMeter(ctx.service.pid);
    const uploaded = await load({ ...upload, durationS: ctx.durationS });
    const cpuMs = cpu.per(uploaded.ok);
    const figures: Figure[] = [
      figure({
        item: this.name,
        metric: 'POST /v1/images/upload (1 Mpx JPEG, base64)',
        value: uploaded.okPerSecond,
        unit: 'uploads/s',
        baseline: { label: 'raw sharp decode+resize+encode', value: baseline },
        targets: [{ on: 'ratio', op: '>=', threshold: 0.5 }],
        note: [loadProblems(uploaded), `p50 ${uploaded.latencyP50} ms, p99 ${uploaded.latencyP99} ms, ${CONNECTIONS} connections; ${(jpeg.length / 1024).toFixed(0)} KiB file`].filter(Boolean).join('; '),
      }),
      figure({ item: this.name, metric: 'service CPU per upload', value: cpuMs, unit: 'ms' }),
    ];

    // The pipeline (safety, classification, detection) works through the uploads in the background:
    // an upload made now is labelled once the backlog before it is done.
    const drainStarted = performance.now();
    const marker = await ctx.request('POST', '/v1/images/upload', { key: account.api_key, body: { type: 'base64', image: jpeg.toString('base64'), sub_id: 'bench-marker' } });
    const markerId = (marker.body as { id?: string } | null)?.id;
    let status = 'to_be_reviewed';
    while (markerId && !FINAL.has(status) && performance.now() - drainStarted < DRAIN_TIMEOUT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = String(((await ctx.request('GET', `/v1/images/${markerId}/status`, { key: account.api_key })).body as { status?: string } | null)?.status);
    }
    const drainS = (performance.now() - drainStarted) / 1000;
    figures.push(
      FINAL.has(status)
        ? figure({
            item: this.name,
            metric: 'pipeline backlog after the upload run, until the next upload is labelled',
            value: Math.round(drainS * 10) / 10,
            unit: 's',
            note: `${uploaded.ok + 1} images through safety, classification and detection; ≈ ${((uploaded.ok + 1) / (ctx.durationS + drainS)).toFixed(1)} images/s from the first upload`,
          })
        : notAvailable(this.name, `the pipeline did not label an upload within ${DRAIN_TIMEOUT_MS / 1000} s of the run (status ${status})`),
    );

    const probe = await ctx.request('POST', '/v1/images/upload-sync', { key: account.api_key, body: { type: 'base64', image: jpeg.toString('base64'), auto_crop: false } });
    if (probe.status !== 201) {
      figures.push(notAvailable(this.name, `upload-sync answers ${probe.status} ${(probe.body as { code?: string } | null)?.code ?? ''}: ${FINAL.has(status) ? 'the image models are not wired into this service' : 'the pipeline is still behind'}`));
      return figures;
    }
    const sync = { ...upload, url: `${ctx.service.url}/v1/images/upload-sync`, connections: 2 };
    await warmUp(sync, ctx.warmupS);
    const synced = await load({ ...sync, durationS: ctx.durationS });
    figures.push(
      figure({
        item: this.name,
        metric: 'POST /v1/images/upload-sync end to end (models included)',
        value: synced.okPerSecond,
        unit: 'uploads/s',
        baseline: { label: 'raw sharp decode+resize+encode', value: baseline },
        note: [loadProblems(synced), `p50 ${synced.latencyP50} ms, p99 ${synced.latencyP99} ms, 2 connections`].filter(Boolean).join('; '),
      }),
      figure({
        item: this.name,
        metric: 'model and pipeline time per image (upload-sync p50 − upload p50)',
        value: Math.max(0, synced.latencyP50 - uploaded.latencyP50),
        unit: 'ms',
      }),
    );
    return figures;
  },
};

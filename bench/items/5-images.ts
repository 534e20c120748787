import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { deriveSmallSizes } from '../../infrastructure/images/process-upload.ts';
import { cpuMeter } from '../harness/cpu.ts';
import { figure, notAvailable } from '../harness/figure.ts';
import { load, loadProblems, warmUp } from '../harness/load.ts';
import { requestJson } from '../harness/http.ts';
import { RSS_BOUND_MIB, sampleRss } from '../harness/rss.ts';
import { startService, type RunningService } from '../harness/service.ts';
import type { Context } from '../harness/context.ts';
import type { BenchItem, Figure } from '../harness/types.ts';

const CONNECTIONS = 4;
/** upload-sync holds a connection for the whole analysis; two keep both inference workers busy. */
const SYNC_CONNECTIONS = 2;
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

/** CPU per image of what the image-sizes processor does after an upload (small + thumb from med). */
const deferredSizesCpuMs = async (jpeg: Buffer): Promise<number> => {
  const med = await sharp(jpeg).resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer();
  const rounds = 200;
  for (let i = 0; i < 20; i++) await deriveSmallSizes(med, 'jpg');
  const before = process.cpuUsage();
  let started = 0;
  const worker = async () => {
    while (started++ < rounds) await deriveSmallSizes(med, 'jpg');
  };
  await Promise.all(Array.from({ length: BASELINE_CONCURRENCY }, worker));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / rounds;
};

/**
 * On a service of the item's own: an account with room for every upload, then `path` under load
 * (after a warm-up) with the service's CPU per upload and its peak RSS; the service is stopped after.
 */
const uploadsUnderLoad = async (service: RunningService, path: string, body: string, connections: number, ctx: Pick<Context, 'warmupS' | 'durationS'>) => {
  try {
    const account = await requestJson(`${service.url}/v1/admin/accounts`, { method: 'POST', key: service.adminKey, body: { name: 'bench images' } });
    if (account.status !== 201) throw new Error(`creating the account answered ${account.status}`);
    const { api_key: apiKey, account_id: accountId } = account.body as { api_key: string; account_id: string };
    const quota = await requestJson(`${service.url}/v1/accounts/${accountId}/quota`, { method: 'PUT', key: service.adminKey, body: { imageUploadQuota: 10_000_000 } });
    if (quota.status !== 200) throw new Error(`setting the bench quota failed: ${quota.status}`);
    const options = { url: `${service.url}${path}`, method: 'POST' as const, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body, connections };
    const rss = sampleRss(service.pid);
    await warmUp(options, ctx.warmupS);
    const cpu = cpuMeter(service.pid);
    const result = await load({ ...options, durationS: ctx.durationS });
    return { result, cpuMs: cpu.per(result.ok), rssMiB: rss.stop() };
  } finally {
    await service.stop();
  }
};

/**
 * 5. Image uploads of a 1-megapixel JPEG per second against raw sharp decode + resize + encode of
 * the same file per second, in the same run. The upload rate is "the service work around sharp"
 * (issue 14): it is measured on a service of its own started with RUN_PROCESSORS=false — the
 * command side as the production topology runs it, the processors and their models elsewhere —
 * so that the pipeline's model inference (≈ 0.3 s of CPU per image) does not run on the same two
 * cores during the window. The service's upload does the baseline's image work (one decode,
 * resize and encode: the `med` size) plus the type check, polyglot scan and header read, and stores
 * the blobs, an event and a quota reservation. The two small sizes are made from `med` after the
 * answer by the image-sizes processor (not running on this service): their CPU per image is its
 * own line, measured in this process. Then, on an all-in-one of its own (processors and models
 * in the same process), upload-sync is measured end to end with its peak RSS, and the
 * model/pipeline time per image (upload-sync p50 − upload p50) is reported as its own line.
 */
export const item: BenchItem = {
  name: '5 images',
  target: 'image uploads of a 1 Mpx JPEG ≥ 0.5× raw sharp decode + resize + encode (the service work around sharp, processors in their own process; upload-sync with the models on lines of its own); peak RSS ≤ 512 MiB',
  async available(ctx) {
    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    const response = await ctx.request('POST', '/v1/images/upload', { key: ctx.accounts.a.api_key, body: { type: 'base64', image: tiny.toString('base64') } });
    return response.status === 201 ? null : `POST /v1/images/upload answers ${response.status}: not available yet`;
  },
  async run(ctx) {
    const jpeg = await photo();
    const body = (subId: string) => JSON.stringify({ type: 'base64', image: jpeg.toString('base64'), sub_id: subId });

    await rawSharpPerSecond(jpeg, ctx.warmupS);
    const baseline = await rawSharpPerSecond(jpeg, ctx.durationS);
    const deferredMs = await deferredSizesCpuMs(jpeg);

    // The command side alone: a service of its own with the processors off (nothing is lost: the
    // uploads wait on the bus for a processor that never comes in this throwaway data directory).
    const commandSide = await startService(ctx.mode, `${ctx.runId}_images`, { env: { REFERENCE_DATA_IMPORT: 'false', RUN_PROCESSORS: 'false' } });
    const { result: uploaded, cpuMs, rssMiB: commandRss } = await uploadsUnderLoad(commandSide, '/v1/images/upload', body('bench'), CONNECTIONS, ctx);
    const figures: Figure[] = [
      figure({
        item: this.name,
        metric: 'POST /v1/images/upload (1 Mpx JPEG, base64), processors in their own process',
        value: uploaded.okPerSecond,
        unit: 'uploads/s',
        baseline: { label: 'raw sharp decode+resize+encode', value: baseline },
        targets: [{ on: 'ratio', op: '>=', threshold: 0.5 }],
        note: [loadProblems(uploaded), `p50 ${uploaded.latencyP50} ms, p99 ${uploaded.latencyP99} ms, ${CONNECTIONS} connections; ${(jpeg.length / 1024).toFixed(0)} KiB file`].filter(Boolean).join('; '),
      }),
      figure({ item: this.name, metric: 'service CPU per upload', value: cpuMs, unit: 'ms' }),
      figure({
        item: this.name,
        metric: 'CPU per image of the small sizes, made after the answer (image-sizes processor: small + thumb from med)',
        value: deferredMs,
        unit: 'ms',
        note: 'deriveSmallSizes in this process, 4 in flight',
      }),
      figure({ item: '7 memory', metric: 'peak RSS of the upload service (RUN_PROCESSORS=false) under 5 images', value: commandRss, unit: 'MiB', targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }] }),
    ];

    // upload-sync end to end on an all-in-one of its own (processors and models in the same
    // process), so that its memory is the image work's: on the bench's shared service it would
    // also count the read models of every vote items 2 and 3 posted (their number grows with the
    // machine's speed). The shared service still runs one upload-sync (the models load there too,
    // for item 7's whole-run line).
    const account = ctx.accounts.a;
    const quota = await ctx.request('PUT', `/v1/accounts/${account.account_id}/quota`, { key: ctx.service.adminKey, body: { imageUploadQuota: 10_000_000 } });
    if (quota.status !== 200) throw new Error(`setting the bench quota failed: ${quota.status}`);
    const probe = await ctx.request('POST', '/v1/images/upload-sync', { key: account.api_key, body: { type: 'base64', image: jpeg.toString('base64'), auto_crop: false } });
    if (probe.status !== 201) {
      figures.push(notAvailable(this.name, `upload-sync answers ${probe.status} ${(probe.body as { code?: string } | null)?.code ?? ''}: the image models are not wired into this service`));
      return figures;
    }
    const allInOne = await startService(ctx.mode, `${ctx.runId}_images_sync`, { env: { REFERENCE_DATA_IMPORT: 'false' } });
    const { result: synced, cpuMs: syncCpuMs, rssMiB: syncRss } = await uploadsUnderLoad(allInOne, '/v1/images/upload-sync', body('bench-sync'), SYNC_CONNECTIONS, ctx);
    figures.push(
      figure({
        item: this.name,
        metric: 'POST /v1/images/upload-sync end to end (models included, same process: an all-in-one of its own)',
        value: synced.okPerSecond,
        unit: 'uploads/s',
        baseline: { label: 'raw sharp decode+resize+encode', value: baseline },
        note: [loadProblems(synced), `p50 ${synced.latencyP50} ms, p99 ${synced.latencyP99} ms, ${SYNC_CONNECTIONS} connections`].filter(Boolean).join('; '),
      }),
      figure({ item: this.name, metric: 'service CPU per upload-sync (upload, safety, classification, detection)', value: syncCpuMs, unit: 'ms' }),
      figure({
        item: this.name,
        metric: 'model and pipeline time per image (upload-sync p50 − upload p50)',
        value: Math.max(0, synced.latencyP50 - uploaded.latencyP50),
        unit: 'ms',
      }),
      figure({
        item: '7 memory',
        metric: 'peak RSS of the upload-sync all-in-one (models loaded) under 5 images',
        value: syncRss,
        unit: 'MiB',
        targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }],
      }),
    );
    return figures;
  },
};

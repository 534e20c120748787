import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ffmpegPath } from '../../infrastructure/media/ffmpeg-binaries.ts';
import { figure } from '../harness/figure.ts';
import { percentile } from '../harness/stats.ts';
import type { Context } from '../harness/context.ts';
import type { BenchItem, Figure } from '../harness/types.ts';

/** The clip: 30 s of 1280×720 at 25 frames/s, a dark shape on a light ground rising and falling 24 times a minute. */
const CLIP = { seconds: 30, width: 1280, height: 720, fps: 25, perMinute: 24 };
/** What the analysis decodes (processors/pet-analyses/decode-frames.ts DecodeSettings): 8 frames/s, 160×120, grey. */
const ANALYSIS = { fps: 8, width: 160, height: 120 };
const ROUNDS = 3;
const RESULT_TIMEOUT_MS = 300_000;

/** Runs ffmpeg to completion, its stdout drained and counted; resolves the bytes written to stdout. */
const ffmpeg = (args: string[]): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(bytes) : reject(new Error(`ffmpeg exited ${code}: ${stderr.slice(0, 500)}`))));
  });

const makeClip = async (path: string) => {
  const { seconds, width, height, fps, perMinute } = CLIP;
  await ffmpeg([
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', `color=c=0xdcdcdc:s=${width}x${height}:r=${fps}:d=${seconds}`,
    '-f', 'lavfi', '-i', `color=c=0x303030:s=560x320:r=${fps}:d=${seconds}`,
    '-filter_complex', `[0][1]overlay=x=360:y='240+40*sin(2*PI*t*${perMinute}/60)':shortest=1,format=yuv420p`,
    '-c:v', 'mpeg4', '-q:v', '4', path,
  ]);
};

/** The baseline: bare ffmpeg (its own process) decoding the clip as the analysis does, raw grey frames to a pipe. */
const bareDecodeMs = async (path: string): Promise<number> => {
  const started = performance.now();
  const bytes = await ffmpeg([
    '-v', 'error', '-i', path, '-an',
    '-vf', `fps=${ANALYSIS.fps},scale=${ANALYSIS.width}:${ANALYSIS.height},format=gray`,
    '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1',
  ]);
  const elapsed = performance.now() - started;
  const expected = CLIP.seconds * ANALYSIS.fps * ANALYSIS.width * ANALYSIS.height;
  if (Math.abs(bytes - expected) > ANALYSIS.width * ANALYSIS.height * 2) throw new Error(`bare decode wrote ${bytes} bytes, expected about ${expected}`);
  return elapsed;
};

const uploadVideo = async (ctx: Context, petId: string, video: Buffer) => {
  const form = new FormData();
  form.append('file', new Blob([video], { type: 'video/mp4' }), 'breathing-720p.mp4');
  const response = await fetch(`${ctx.service.url}/v1/pets/${petId}/videos`, { method: 'POST', headers: { 'x-api-key': ctx.accounts.a.api_key }, body: form });
  if (response.status !== 201) throw new Error(`video upload answered ${response.status}: ${await response.text()}`);
};

/** One analysis, end to end: POST → 202 pending, then GET until completed (or failed), timed from the POST. */
const analyseMs = async (ctx: Context, petId: string): Promise<{ ms: number; result: Record<string, unknown> }> => {
  const key = ctx.accounts.a.api_key;
  const started = performance.now();
  const requested = await ctx.request('POST', `/v1/pets/${petId}/respiratory-rate`, { key });
  if (requested.status !== 202) throw new Error(`POST respiratory-rate answered ${requested.status}: ${JSON.stringify(requested.body)}`);
  const id = requested.body.id as string;
  for (;;) {
    const read = await ctx.request('GET', `/v1/pets/${petId}/respiratory-rate/${id}`, { key });
    const status = read.body?.status;
    if (status === 'completed' || status === 'failed') return { ms: performance.now() - started, result: read.body };
    if (performance.now() - started > RESULT_TIMEOUT_MS) throw new Error(`no result within ${RESULT_TIMEOUT_MS / 1000} s (status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/**
 * 6. Respiratory rate of a 30 s 720p clip, end to end from the request to the completed result
 * (the processor copies the video out of the blob store, decodes it with ffmpeg at 8 frames/s to
 * 160×120 grey frames on a pipe and analyses the motion), against bare ffmpeg decoding the same
 * clip with the same filter to a pipe in a process of its own, in the same run. Median of 3 each.
 */
export const item: BenchItem = {
  name: '6 respiratory rate',
  target: 'request → completed result for a 30 s 720p clip ≤ 1.5× bare ffmpeg decoding it at the analysis frame rate and size; peak RSS ≤ 512 MiB',
  async available(ctx) {
    const pet = await ctx.request('POST', '/v1/pets', { key: ctx.accounts.a.api_key, body: { name: 'bench probe', species_id: '2' } });
    if (pet.status !== 201) return `POST /v1/pets answers ${pet.status}: not available yet`;
    const probe = await ctx.request('POST', `/v1/pets/${pet.body.id}/respiratory-rate`, { key: ctx.accounts.a.api_key });
    return probe.status === 400 && probe.body?.code === 'pet_has_no_video' ? null : `POST /v1/pets/{id}/respiratory-rate answers ${probe.status}: not available yet`;
  },
  async run(ctx) {
    const dir = await mkdtemp(join(tmpdir(), 'bench-rr-'));
    try {
      const path = join(dir, 'breathing-720p.mp4');
      await makeClip(path);
      const video = await readFile(path);
      const pet = await ctx.request('POST', '/v1/pets', { key: ctx.accounts.a.api_key, body: { name: 'bench breather', species_id: '2' } });
      if (pet.status !== 201) throw new Error(`creating the pet failed: ${pet.status}`);
      const petId = pet.body.id as string;
      await uploadVideo(ctx, petId, video);

      // Warm-up: one of each (page cache, ffmpeg start-up), not counted.
      await bareDecodeMs(path);
      await analyseMs(ctx, petId);
      const bare: number[] = [];
      const service: number[] = [];
      let last: Record<string, unknown> = {};
      for (let round = 0; round < ROUNDS; round++) {
        bare.push(await bareDecodeMs(path));
        const analysed = await analyseMs(ctx, petId);
        service.push(analysed.ms);
        last = analysed.result;
      }
      const bareMedian = percentile(bare, 50)!;
      const serviceMedian = percentile(service, 50)!;
      const outcome =
        last.status === 'completed'
          ? `read ${last.breaths_per_minute}/min (clip made at ${CLIP.perMinute}/min)`
          : `the analysis failed: ${String(last.failure_reason ?? last.reasons ?? '')}`;
      const figures: Figure[] = [
        figure({
          item: this.name,
          metric: 'POST respiratory-rate → completed, 30 s 720p clip (median)',
          value: Math.round(serviceMedian),
          unit: 'ms',
          baseline: { label: 'bare ffmpeg decode, same filter, own process', value: Math.round(bareMedian) },
          targets: [{ on: 'ratio', op: '<=', threshold: 1.5 }],
          note: `${ROUNDS} rounds each: service ${service.map(Math.round).join(', ')} ms; bare ${bare.map(Math.round).join(', ')} ms; ${(video.length / 1048576).toFixed(1)} MiB mpeg4 clip; ${outcome}`,
        }),
      ];
      return figures;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

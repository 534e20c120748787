import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath, ffprobePath } from '../infrastructure/media/ffmpeg-binaries.ts';
import { MediaLimits } from '../infrastructure/media/bounded-run.ts';
import { probeVideo } from '../command-api/uploads/video-probe.ts';
import { decodeGreyFrames, DecodeSettings } from '../processors/pet-analyses/decode-frames.ts';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { recordFigures } from './harness-figures.ts';
import * as hostile from './hostile-media.ts';

/**
 * A hostile-media corpus against the service as a real process, everything built by this test
 * (test/hostile-media.ts; no binary fixtures): timestamp gaps and absurd durations, an oversized
 * edit list, a huge sample table, an HLS playlist in an AVI subtitle stream and external data
 * references aimed at a canary file and a loopback listener, truncated and looping atoms, playlists
 * and concat scripts posing as videos, decompression bombs (PNG, GIF, WebP) and HTML in pictures on
 * both photo routes. Each is refused or handled within bounded time; the service's process tree
 * (the service and every ffmpeg/ffprobe child it starts) stays under 768 MiB throughout, its media
 * children see PATH and nothing else of its environment, none is left running, the canary and the
 * listener are never touched, and /health answers afterwards.
 */

const MiB = 1024 * 1024;
const MAX_TREE_RSS = 768 * MiB;
/** Longest any one hostile request may take (the probe's own limit is 30 s). */
const MAX_REQUEST_MS = 35_000;
const ADMIN_KEY = 'hostile-admin-key-0123456789';
const SECRET_CANARY = 'hostile-secret-canary-value';
const HTML = '<body onload=alert(document.domain)>';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
const canary = join(dir, 'canary.m3u8');
let service: ServiceProcess;
let apiKey = '';
let listener: Server;
let listenerPort = 0;
let connections = 0;
let canaryWatch: ReturnType<typeof watchFifo> | null = null;
let sampler: ReturnType<typeof setInterval> | null = null;
let peakTree = 0;
const mediaChildren = new Map<number, { command: string; env: string[] }>();
const figures: string[] = [];
const clips: Record<string, Buffer> = {};

// ---------------------------------------------------------------- the service's process tree

const processes = (): { pid: number; ppid: number }[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return [{ pid: Number(name), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) }];
      } catch {
        return [];
      }
    });

/** The service and all its descendants. */
const tree = (root: number): number[] => {
  const all = processes();
  const found = [root];
  for (let i = 0; i < found.length; i++) for (const entry of all) if (entry.ppid === found[i]) found.push(entry.pid);
  return found;
};

const rssOf = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};

const sample = () => {
  const pids = tree(service.child.pid as number);
  peakTree = Math.max(peakTree, pids.reduce((sum, pid) => sum + rssOf(pid), 0));
  for (const pid of pids.slice(1)) {
    if (mediaChildren.has(pid)) continue;
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000')[0];
      if (!/ff(mpeg|probe)$/.test(command)) continue;
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\u0000').filter(Boolean).map((entry) => entry.split('=')[0]);
      mediaChildren.set(pid, { command, env });
    } catch {
      // exited meanwhile
    }
  }
};

const mediaDescendants = () =>
  tree(service.child.pid as number)
    .slice(1)
    .filter((pid) => {
      try {
        return /ff(mpeg|probe)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });

/** A FIFO that notices being opened: opening it for writing completes only once someone opens it to read. */
const watchFifo = (path: string) => {
  execFileSync('mkfifo', [path]);
  let opened = false;
  const pending = open(path, constants.O_WRONLY).then(async (handle) => {
    opened = true;
    await handle.close();
  });
  return {
    opened: () => opened,
    /** Completes the pending open (by opening the read end) once the watch is over. */
    release: async () => {
      const reader = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
      await reader?.close();
      await pending.catch(() => undefined);
    },
  };
};

// ---------------------------------------------------------------- requests

const timed = async <T>(label: string, work: () => Promise<T>): Promise<T> => {
  const started = Date.now();
  const result = await work();
  const elapsed = Date.now() - started;
  expect(elapsed, `${label} took ${elapsed} ms`).toBeLessThan(MAX_REQUEST_MS);
  return result;
};

const post = async (path: string, form: FormData) => {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
};

const fileForm = (field: string, bytes: Buffer, name: string, type = 'application/octet-stream', fields: Record<string, string> = {}) => {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), name);
  return form;
};

const newPet = async (name: string): Promise<string> => {
  const response = await fetch(`${service.url}/v1/pets`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name, species_id: '2' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
};

const uploadVideo = (petId: string, bytes: Buffer, name: string) => timed(`video ${name}`, () => post(`/v1/pets/${petId}/videos`, fileForm('file', bytes, name)));

const analyse = async (petId: string): Promise<{ status: string; failure_reason?: string }> => {
  const requested = await fetch(`${service.url}/v1/pets/${petId}/respiratory-rate`, { method: 'POST', headers: { 'x-api-key': apiKey } });
  expect(requested.status).toBe(202);
  const { id } = (await requested.json()) as { id: string };
  const deadline = Date.now() + 90_000;
  for (;;) {
    const body = (await (await fetch(`${service.url}/v1/pets/${petId}/respiratory-rate/${id}`, { headers: { 'x-api-key': apiKey } })).json()) as { status: string; failure_reason?: string };
    if (body.status === 'completed' || body.status === 'failed') return body;
    if (Date.now() > deadline) throw new Error(`respiratory rate still ${body.status} after 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

// ---------------------------------------------------------------- setup

beforeAll(async () => {
  // Made by ffmpeg here: a 2 s MP4 (index at the end, as ffmpeg writes it) and a 2 s AVI.
  const make = async (name: string, args: string[]) => {
    const path = join(dir, name);
    await run(ffmpegPath(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '2', ...args, path]);
    return readFileSync(path);
  };
  clips.mp4 = await make('clip.mp4', ['-c:v', 'mpeg4', '-pix_fmt', 'yuv420p']);
  clips.avi = await make('clip.avi', ['-c:v', 'mpeg4']);
  // 1,500 frames of 64×48: under an edit list that replays it 20,000 times, ffprobe's index alone
  // grew to 754 MB unbounded.
  const long = join(dir, 'long.mp4');
  await run(ffmpegPath(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25', '-t', '60', '-c:v', 'mpeg4', '-g', '1000', '-pix_fmt', 'yuv420p', long]);
  clips.long = readFileSync(long);

  canaryWatch = watchFifo(canary);
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerPort = (listener.address() as { port: number }).port;

  service = await startServiceProcess({
    DATA_DIR: join(dir, 'data'),
    ADMIN_API_KEY: ADMIN_KEY,
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    HOSTILE_SECRET_CANARY: SECRET_CANARY,
    RATE_LIMIT_PER_MINUTE: '1000000',
    REFERENCE_DATA_IMPORT: 'false',
  });
  const created = await fetch(`${service.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'hostile' }),
  }).then((response) => response.json() as Promise<{ api_key: string }>);
  apiKey = created.api_key;
  sampler = setInterval(sample, 15);
}, 90_000);

afterAll(async () => {
  if (sampler) clearInterval(sampler);
  recordFigures('hostile-media', `hostile media: ${figures.join('; ')}`);
  await service?.stop('SIGKILL');
  listener?.close();
  // Release the canary's pending open (it is no longer watched), then remove everything.
  await canaryWatch?.release();
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- the corpus

describe('hostile media', () => {
  it('refuses or bounds every hostile video at upload', { timeout: 240_000 }, async () => {
    const petId = await newPet('Target');
    const playlist = [
      '#EXTM3U',
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXT-X-TARGETDURATION:10',
      '#EXTINF:10.0,',
      `file://${canary}`,
      '#EXTINF:10.0,',
      `http://127.0.0.1:${listenerPort}/segment.ts`,
      '#EXT-X-ENDLIST',
      '',
    ].join('\n');
    const { overlong, deep, zeroSized } = hostile.loopingAtoms(clips.mp4);
    const cases: [string, Buffer, number, string | null][] = [
      ['huge duration (2,000,000 s stated)', hostile.hugeDuration(clips.mp4, 100_000), 400, 'video_duration_invalid'],
      ['12,500 s timestamp gap, stated', hostile.timestampGap(clips.mp4, 12_500, true), 400, 'video_duration_invalid'],
      ['no duration stated anywhere', hostile.noDuration(clips.mp4), 400, 'video_duration_invalid'],
      ['20,000-entry edit list', hostile.oversizedEditList(clips.long, 20_000), 400, 'video_too_complex'],
      ['truncated moov', hostile.truncatedAtom(clips.mp4), 400, 'invalid_media'],
      ['child atom longer than its parent', overlong, 400, 'invalid_media'],
      ['atoms nested 1,000 deep', deep, 400, 'invalid_media'],
      ['zero-sized atoms', zeroSized, 400, 'invalid_media'],
      ['HLS playlist posing as a video', Buffer.from(playlist), 415, 'unsupported_media_type'],
      ['concat script posing as a video', Buffer.from(`ffconcat version 1.0\nfile '${canary}'\nfile 'http://127.0.0.1:${listenerPort}/a.mp4'\n`), 415, 'unsupported_media_type'],
    ];
    for (const [label, bytes, status, code] of cases) {
      const response = await uploadVideo(petId, bytes, 'hostile.mp4');
      expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBe(status);
      if (code) expect(response.body.code, label).toBe(code);
    }
    // Four edit-list bombs at once: refused from the box headers, ffprobe never runs on them.
    const parallel = await Promise.all([1, 2, 3, 4].map(() => uploadVideo(petId, hostile.oversizedEditList(clips.long, 20_000), 'edits.mp4')));
    expect(parallel.map((response) => response.body.code)).toEqual(Array(4).fill('video_too_complex'));
    figures.push(`${cases.length + 4} hostile uploads refused`);
  });

  it('stores the crafted videos it cannot tell from real ones, and analyses them within bounds', { timeout: 240_000 }, async () => {
    const accepted: [string, Buffer, string][] = [
      ['590 s gap, stated', hostile.timestampGap(clips.mp4, 590, true), 'gap.mp4'],
      ['12,500 s gap, not stated', hostile.timestampGap(clips.mp4, 12_500, false), 'gap2.mp4'],
      ['50 million samples', hostile.hugeSampleTable(clips.mp4, 50_000_000), 'samples.mp4'],
      ['external data references (absolute path, loopback URL)', hostile.externalReference(clips.mp4, canary, `http://127.0.0.1:${listenerPort}/media.mp4`), 'dref.mp4'],
      ['HLS in an AVI subtitle stream', hostile.hlsInAvi(clips.avi, `#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\nfile://${canary}\n#EXTINF:10.0,\nhttp://127.0.0.1:${listenerPort}/x.ts\n#EXT-X-ENDLIST\n`), 'subs.avi'],
    ];
    const pets: string[] = [];
    const outcomes: string[] = [];
    for (const [label, bytes, name] of accepted) {
      const petId = await newPet(label);
      const response = await uploadVideo(petId, bytes, name);
      outcomes.push(`${label} → ${response.status}${response.status === 201 ? '' : ` ${response.body.code}`}`);
      expect([201, 400], `${label}: ${JSON.stringify(response.body)}`).toContain(response.status);
      if (response.status === 201) {
        expect(response.body.duration_seconds, label).toBeLessThanOrEqual(600);
        pets.push(petId);
      } else {
        expect(['invalid_media', 'video_too_complex', 'video_duration_invalid']).toContain(response.body.code);
      }
    }
    // All analyses at once: the process-wide slots queue them; each ends completed or failed.
    const started = Date.now();
    const results = await Promise.all(pets.map((petId) => analyse(petId)));
    for (const result of results) expect(['completed', 'failed']).toContain(result.status);
    figures.push(`crafted videos: ${outcomes.join(', ')}`);
    figures.push(`${pets.length} crafted videos stored and analysed in ${((Date.now() - started) / 1000).toFixed(1)} s (${results.map((result) => `${result.status}${result.failure_reason ? `: ${result.failure_reason}` : ''}`).join(' | ')})`);
  });

  it('ffprobe itself stays within its memory limit on the edit-list bomb the upload refuses first', { timeout: 120_000 }, async () => {
    const path = join(dir, 'edits.mp4');
    writeFileSync(path, hostile.oversizedEditList(clips.long, 20_000));
    let peak = 0;
    const watch = setInterval(() => {
      for (const pid of tree(process.pid).slice(1)) {
        try {
          if (/ffprobe/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) peak = Math.max(peak, rssOf(pid));
        } catch {
          // exited
        }
      }
    }, 10);
    const started = Date.now();
    const outcome = await probeVideo(path, 'mov').finally(() => clearInterval(watch));
    expect(Date.now() - started).toBeLessThan(MAX_REQUEST_MS);
    figures.push(`bounded ffprobe on the edit-list bomb: ${outcome.ok ? 'read' : outcome.reason}, peak RSS ${(peak / MiB).toFixed(0)} MiB (limit ${MediaLimits.memoryBytes / MiB} MiB of data)`);
    // The data limit plus the mapped code and libraries; 754 MB without it.
    expect(peak).toBeLessThan(MediaLimits.memoryBytes + 96 * MiB);
  });

  it('control: the canary notices ffprobe following the reference when drefs and absolute paths are on', { timeout: 60_000 }, async () => {
    const control = watchFifo(join(dir, 'control-canary'));
    try {
      const path = join(dir, 'control.mp4');
      writeFileSync(path, hostile.externalReference(clips.mp4, join(dir, 'control-canary'), 'http://127.0.0.1:9/'));
      await run(ffprobePath(), ['-v', 'quiet', '-f', 'mov', '-enable_drefs', '1', '-use_absolute_path', '1', '-show_format', path], { timeout: 10_000 }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(control.opened()).toBe(true);
    } finally {
      await control.release();
    }
  });

  it('decoding stops at its frame cap even on files the upload refuses', { timeout: 120_000 }, async () => {
    const maxFrames = DecodeSettings.maxSeconds * DecodeSettings.fps;
    for (const bytes of [hostile.hugeDuration(clips.mp4, 100_000), hostile.timestampGap(clips.mp4, 12_500, true)]) {
      const started = Date.now();
      const frames = await decodeGreyFrames(Readable.from(bytes));
      expect(frames.frames.length).toBeLessThanOrEqual(maxFrames);
      expect(Date.now() - started).toBeLessThan(30_000);
    }
  });

  it('refuses decompression bombs on both photo routes', { timeout: 120_000 }, async () => {
    const petId = await newPet('Bombed');
    const bombs: [string, Buffer][] = [
      ['png', await hostile.pngBomb(20_000)],
      ['gif', hostile.gifBomb()],
      ['webp', hostile.webpBomb()],
    ];
    for (const [format, bomb] of bombs) {
      const image = await timed(`${format} bomb on images`, () => post('/v1/images/upload', fileForm('file', bomb, `bomb.${format}`, 'application/octet-stream', { type: 'FILE' })));
      expect(image.status, `${format}: ${JSON.stringify(image.body)}`).toBe(400);
      expect(['image_too_many_pixels', 'image_corrupt', 'image_truncated']).toContain(image.body.code);
      const pet = await timed(`${format} bomb on pets`, () => post(`/v1/pets/${petId}/images`, fileForm('images', bomb, `bomb.${format}`)));
      expect(pet.status, `${format}: ${JSON.stringify(pet.body)}`).toBe(400);
      expect(['invalid_media', 'image_polyglot']).toContain(pet.body.code);
    }
  });

  it('refuses tiny files that are decoded whole past 4096 × 4096 (GIF, interlaced PNG, progressive JPEG) on both photo routes', { timeout: 120_000 }, async () => {
    const petId = await newPet('Whole');
    const black = () => sharp({ create: { width: 7000, height: 7000, channels: 3, background: '#000' } });
    const files: [string, Buffer][] = [
      ['gif', await black().gif().toBuffer()],
      ['png', await black().png({ progressive: true }).toBuffer()],
      ['jpg', await black().jpeg({ progressive: true }).toBuffer()],
    ];
    for (const [format, bytes] of files) {
      expect(bytes.length, format).toBeLessThan(400 * 1024);
      const image = await timed(`7000×7000 ${format} on images`, () => post('/v1/images/upload', fileForm('file', bytes, `whole.${format}`, 'application/octet-stream', { type: 'FILE' })));
      expect(image.status, `${format}: ${JSON.stringify(image.body)}`).toBe(400);
      expect(image.body.code).toBe('image_too_many_pixels');
      const pet = await timed(`7000×7000 ${format} on pets`, () => post(`/v1/pets/${petId}/images`, fileForm('images', bytes, `whole.${format}`)));
      expect(pet.status, `${format}: ${JSON.stringify(pet.body)}`).toBe(400);
      expect(pet.body.code).toBe('invalid_media');
    }
  });

  it('never serves markup back from a photo, on either route', { timeout: 120_000 }, async () => {
    const petId = await newPet('Markup');
    const jpeg = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 120, b: 40 } } }).jpeg().toBuffer();
    const htmlJpeg = hostile.jpegWithHtml(jpeg, HTML);
    // HTML in the comment and APP15 segments: a polyglot on both routes.
    const image = await post('/v1/images/upload', fileForm('file', htmlJpeg, 'x.jpg', 'image/jpeg', { type: 'FILE' }));
    expect(image.status, JSON.stringify(image.body)).toBe(400);
    expect(image.body.code).toBe('image_polyglot');
    const pet = await post(`/v1/pets/${petId}/images`, fileForm('images', htmlJpeg, 'x.jpg', 'image/jpeg'));
    expect(pet.status, JSON.stringify(pet.body)).toBe(400);
    expect(pet.body.code).toBe('image_polyglot');

    // Markup that is pixel data (a PNG in stored deflate blocks) and a JPEG with harmless segments:
    // accepted, but what is served holds neither.
    const textPng = hostile.pngWithTextPixels(HTML);
    expect(textPng.includes(Buffer.from(HTML))).toBe(true);
    const commented = hostile.jpegWithHtml(jpeg, 'taken by a phone');
    for (const [bytes, type, needle] of [
      [textPng, 'image/png', HTML],
      [commented, 'image/jpeg', 'taken by a phone'],
    ] as const) {
      const uploaded = await post('/v1/images/upload', fileForm('file', bytes, 'x.bin', type, { type: 'FILE' }));
      expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
      const served = await fetch(uploaded.body.url);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-security-policy')).toMatch(/sandbox/);
      expect(Buffer.from(await served.arrayBuffer()).includes(Buffer.from(needle))).toBe(false);

      const added = await post(`/v1/pets/${petId}/images`, fileForm('images', bytes, 'x.bin', type));
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      const file = await fetch(`${service.url}/v1/pets/${petId}/images/${added.body[0].id}/file`, { headers: { 'x-api-key': apiKey } });
      expect(file.status).toBe(200);
      expect(file.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      const stored = Buffer.from(await file.arrayBuffer());
      expect(stored.includes(Buffer.from(needle))).toBe(false);
      expect((await sharp(stored).metadata()).width).toBeGreaterThan(0);
    }
  });

  it('stayed within 768 MiB, kept its secrets from ffmpeg, left nothing running, touched neither canary, and still answers', { timeout: 60_000 }, async () => {
    // Children finish or are killed within their limits; give the last ones a moment.
    const deadline = Date.now() + 20_000;
    while (mediaDescendants().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(mediaDescendants()).toEqual([]);
    figures.push(`process tree peak RSS ${(peakTree / MiB).toFixed(0)} MiB (bound ${MAX_TREE_RSS / MiB})`, `${mediaChildren.size} ffmpeg/ffprobe children seen`);
    expect(peakTree, `peak ${(peakTree / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_TREE_RSS);
    for (const [pid, child] of mediaChildren) expect(child.env, `${child.command} (${pid})`).toEqual(['PATH']);
    expect(canaryWatch!.opened(), 'the canary file was opened').toBe(false);
    expect(connections, 'the loopback listener was contacted').toBe(0);
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(service.output()).not.toContain(SECRET_CANARY);
  });
});

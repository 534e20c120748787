import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, createDeflate } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startServiceProcess, type ServiceProcess } from './service-process.ts';
import { serviceNodeOptions } from '../infrastructure/heap-policy.ts';
import { recordFigures } from './harness-figures.ts';

/**
 * Bounded memory under hostile uploads, measured on the service process itself (RSS sampled from
 * /proc every 20 ms while the upload and its processing run):
 * - a pixel bomb: a PNG of a few hundred KB that decodes to 400 megapixels;
 * - a 200 MB video (the spec's largest), streamed.
 * The upload routes arrive with the images and pets work; until POST /v1/images/upload and
 * POST /v1/pets/{petId}/videos are in the OpenAPI document, each test skips itself saying so.
 */

const ADMIN_KEY = 'memory-admin-key-0123456789';
const MiB = 1024 * 1024;
/** How far the service's RSS may rise above its resting level during one hostile upload. */
const MAX_RSS_GROWTH = 256 * MiB;

const dataDir = mkdtempSync(join(tmpdir(), 'memory-'));
let service: ServiceProcess;
let apiKey = '';
let paths: Record<string, unknown> = {};
const figures: string[] = [];

/** Whether a command route file declares a path (cheap: a service process is started only when one does). */
const declared = (pattern: RegExp): boolean =>
  readdirSync('command-api/routes', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .some((file) => pattern.test(readFileSync(join('command-api/routes', file), 'utf8')));
const uploadRoutesDeclared = declared(/['"`]\/images\/upload['"`]/) || declared(/\/pets\/:[A-Za-z_]+\/videos/);

beforeAll(async () => {
  if (!uploadRoutesDeclared) return;
  // No reference data needed here: skipping its import keeps the start quick on a loaded machine.
  service = await startServiceProcess({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_PER_MINUTE: '1000000', REFERENCE_DATA_IMPORT: 'false' });
  const created = await fetch(`${service.url}/v1/admin/accounts`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'memory' }),
  }).then((response) => response.json() as Promise<{ api_key: string }>);
  apiKey = created.api_key;
  paths = ((await fetch(`${service.url}/v1/openapi.json`).then((response) => response.json())) as { paths: Record<string, unknown> }).paths;
}, 60_000);

afterAll(async () => {
  recordFigures('upload-memory', `upload memory: ${figures.length > 0 ? figures.join('; ') : 'skipped (the upload routes do not exist yet)'}`);
  await service?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const rssOf = (pid: number): number => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
};

/** Samples the service's RSS while `work` runs and for `settleMs` after (processing is asynchronous). */
const measure = async <T>(work: () => Promise<T>, settleMs = 5000): Promise<{ result: T; baseline: number; peak: number }> => {
  const pid = service.child.pid as number;
  const baseline = rssOf(pid);
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return { result, baseline, peak };
  } finally {
    clearInterval(timer);
  }
};

/**
 * The image models load with the first image analysed (≈ 160 MiB, once): one small photo is
 * uploaded and its analysis awaited, so a measurement after it sees the uploads alone.
 */
const modelsLoaded = async (): Promise<void> => {
  const photo = await sharp({ create: { width: 96, height: 96, channels: 3, background: '#6a8' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([photo], { type: 'image/png' }), 'warm.png');
  const uploaded = await fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  expect(uploaded.status).toBe(201);
  const { id } = (await uploaded.json()) as { id: string };
  for (let i = 0; i < 300; i++) {
    const status = await fetch(`${service.url}/v1/images/${id}/status`, { headers: { 'x-api-key': apiKey } }).then((response) => response.json() as Promise<{ status?: string }>);
    if (status.status && status.status !== 'to_be_reviewed') return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the warm-up photo was never analysed');
};

const pngChunk = (type: string, data: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
};

/** A valid grayscale PNG of side × side pixels, all black: tiny on the wire, huge once decoded. */
const pixelBomb = async (side: number): Promise<Buffer> => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // grayscale
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const row = Buffer.alloc(side + 1); // filter byte 0 + pixels
  for (let y = 0; y < side; y++) {
    if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.concat(compressed)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
};

/** A multipart body streamed chunk by chunk (never held whole): fields, then one file of `size` bytes starting with `head`. */
const streamedMultipart = (fields: Record<string, string>, file: { field: string; name: string; type: string; head: Buffer; size: number }) => {
  const boundary = `----memory${Date.now()}`;
  const prefix = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
  );
  const suffix = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(MiB);
  let sent = 0;
  let stage: 'prefix' | 'file' | 'suffix' | 'done' = 'prefix';
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 'prefix') {
        controller.enqueue(prefix);
        controller.enqueue(file.head);
        sent = file.head.length;
        stage = 'file';
      } else if (stage === 'file') {
        const next = Math.min(chunk.length, file.size - sent);
        if (next > 0) controller.enqueue(chunk.subarray(0, next));
        sent += next;
        if (sent >= file.size) stage = 'suffix';
      } else if (stage === 'suffix') {
        controller.enqueue(suffix);
        stage = 'done';
      } else {
        controller.close();
      }
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
};

describe('bounded memory under hostile uploads', () => {
  it('stays bounded while a pixel bomb is uploaded and processed', { timeout: 120_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) {
      context.skip('POST /v1/images/upload does not exist yet (images work): the pixel-bomb measurement runs once it does');
    }
    const bomb = await pixelBomb(20_000);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const form = new FormData();
    form.append('type', 'FILE');
    form.append('file', new Blob([bomb], { type: 'image/png' }), 'bomb.png');
    const { result, baseline, peak } = await measure(() =>
      fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }).then((response) => response.status),
    );
    figures.push(`pixel bomb (400 Mpx, ${(bomb.length / 1024).toFixed(0)} KiB) → ${result}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`);
    expect(result).toBeLessThan(500);
    expect(peak - baseline, `RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('stays bounded while eight 20 MB photos arrive at once as base64 JSON, refusing what does not fit with 503 media_busy', { timeout: 180_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) context.skip('POST /v1/images/upload does not exist yet');
    // 20 MB of bytes behind a JPEG signature (refused once read: what is measured is receiving them).
    const bytes = Buffer.alloc(20 * 1000 * 1000, 7);
    bytes.set([0xff, 0xd8, 0xff, 0xe0], 0);
    const body = JSON.stringify({ type: 'base64', image: bytes.toString('base64') });
    const send = () =>
      fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body }).then(async (response) => ({
        status: response.status,
        code: ((await response.json()) as { code?: string }).code,
        retryAfter: response.headers.get('retry-after'),
      }));
    const { result, baseline, peak } = await measure(() => Promise.all(Array.from({ length: 8 }, send)));
    const busy = result.filter((answer) => answer.status === 503);
    figures.push(
      `8 × 20 MB base64 photos at once → ${result.map((answer) => answer.status).join(',')}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`,
    );
    expect(peak - baseline, `RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
    // At least one was read through (and refused for its bytes); the ones that did not fit were told to come back.
    expect(result.some((answer) => answer.status !== 503 && answer.status < 500)).toBe(true);
    for (const answer of busy) expect(answer).toMatchObject({ code: 'media_busy', retryAfter: '2' });
    // Once they are answered, the budget is free again.
    const again = await send();
    expect(again.status).not.toBe(503);
    expect(again.status).toBeLessThan(500);
  });

  it('decodes tiny files that are decoded whole one after another: eight 16-megapixel interlaced PNGs at once stay bounded', { timeout: 180_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) context.skip('POST /v1/images/upload does not exist yet');
    // ≈ 320 KB on the wire, ≈ 60 MiB to decode each (an interlaced PNG is decoded whole):
    // their decoding waits its turn in the memory budget (infrastructure/images/decode-cost.ts).
    // With the budget out of the way (UPLOAD_MEMORY_BUDGET_MB=65536) the eight took the process up
    // by 395 MiB; with it, 139 MiB (2026-11-28, models loaded before).
    const png = await sharp({ create: { width: 4000, height: 4000, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } } }).png({ progressive: true }).toBuffer();
    expect(png.length).toBeLessThan(MiB);
    await modelsLoaded();
    const send = () => {
      const form = new FormData();
      form.append('file', new Blob([png], { type: 'image/png' }), 'interlaced.png');
      return fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }).then((response) => response.status);
    };
    const { result, baseline, peak } = await measure(() => Promise.all(Array.from({ length: 8 }, send)));
    figures.push(`8 × 16 Mpx interlaced PNG (${(png.length / 1024).toFixed(0)} KiB) at once → ${result.join(',')}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`);
    expect(result).toEqual(Array.from({ length: 8 }, () => 201));
    expect(peak - baseline, `RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
  });

  it('re-encodes a 49-megapixel phone photo, upright or turned by its EXIF orientation, within bounds', { timeout: 180_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) context.skip('POST /v1/images/upload does not exist yet');
    // A photo's EXIF makes `full` a re-encode (its metadata stripped), and orientation 6 a quarter
    // turn that holds the whole picture. 2026-11-28, the service after the models loaded: +318 MiB
    // for the upright one while the JPEG encoder optimised its Huffman tables (buffering every
    // coefficient; ≈ 440 turned), +57 and +109 MiB without (infrastructure/images/decode-cost.ts).
    await modelsLoaded();
    const [width, height] = [8100, 6050];
    const grain = Buffer.alloc(810 * 605 * 3);
    for (let i = 0; i < grain.length; i++) grain[i] = (i * 2654435761) >>> 24;
    const photo = sharp(grain, { raw: { width: 810, height: 605, channels: 3 } }).resize(width, height, { kernel: 'cubic' });
    for (const orientation of [1, 6]) {
      const bytes = await photo.clone().jpeg({ quality: 90 }).withMetadata({ orientation }).toBuffer();
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'image/jpeg' }), `phone-${orientation}.jpg`);
      const { result, baseline, peak } = await measure(() =>
        fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }).then(
          async (response) => ({ status: response.status, body: (await response.json()) as { width?: number; height?: number } }),
        ),
      );
      figures.push(`49 Mpx JPEG, EXIF orientation ${orientation} (${(bytes.length / MiB).toFixed(1)} MiB) → ${result.status}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`);
      expect(result.status).toBe(201);
      expect([result.body.width, result.body.height]).toEqual(orientation === 6 ? [height, width] : [width, height]);
      expect(peak - baseline, `orientation ${orientation}: RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
    }
  });

  it('keeps a 49-megapixel WebP carrying EXIF without re-encoding it, and refuses a turned one from its header', { timeout: 180_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) context.skip('POST /v1/images/upload does not exist yet');
    // libwebp encodes a whole picture at once (up to 16 bytes a pixel): re-encoding this one to
    // strip its EXIF took the service up by 364 MiB (2026-11-28; +4 MiB since). Its metadata chunks are dropped instead (clean-photo.ts), and a
    // WebP that must be re-encoded (turned) is refused above 4096 × 4096 (decode-cost.ts).
    await modelsLoaded();
    const side = 7000;
    const photo = sharp({ create: { width: side, height: side, channels: 3, background: '#5a7' } });
    for (const orientation of [1, 6]) {
      const bytes = await photo.clone().webp({ quality: 50, effort: 0 }).withMetadata({ orientation }).toBuffer();
      expect((await sharp(bytes).metadata()).exif).toBeDefined();
      const form = new FormData();
      form.append('file', new Blob([bytes], { type: 'image/webp' }), `large-${orientation}.webp`);
      const { result, baseline, peak } = await measure(() =>
        fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form }).then(
          async (response) => ({ status: response.status, body: (await response.json()) as { width?: number; code?: string } }),
        ),
      );
      figures.push(`49 Mpx WebP, EXIF orientation ${orientation} (${(bytes.length / 1024).toFixed(0)} KiB) → ${result.status}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`);
      if (orientation === 1) expect(result).toMatchObject({ status: 201, body: { width: side } });
      else expect(result).toMatchObject({ status: 400, body: { code: 'image_too_many_pixels' } });
      expect(peak - baseline, `orientation ${orientation}: RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
    }
  });

  it('takes the largest base64 photo (50 MB) within the 512 MiB line, and of two at once lets one in and tells the other to come back', { timeout: 180_000 }, async (context) => {
    if (!('/v1/images/upload' in paths)) context.skip('POST /v1/images/upload does not exist yet');
    // The process runs as `npm start` runs it (infrastructure/heap-policy.ts): the old generation capped.
    expect(readFileSync(`/proc/${service.child.pid}/environ`, 'utf8').split('\0')).toContain(`NODE_OPTIONS=${serviceNodeOptions()}`);
    // A real 64 × 64 PNG padded with a private ancillary chunk (decoders skip it) to just under 50 MiB.
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#8a6' } }).png().toBuffer();
    const pad = pngChunk('prVt', Buffer.alloc(50 * MiB - png.length - 12 - 1024, 3));
    const photo = Buffer.concat([png.subarray(0, png.length - 12), pad, png.subarray(png.length - 12)]);
    expect(photo.length).toBeGreaterThan(50 * MiB - 2048);
    const body = JSON.stringify({ type: 'base64', image: photo.toString('base64'), sub_id: 'largest' });
    const send = () =>
      fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body }).then(async (response) => ({
        status: response.status,
        code: ((await response.json()) as { code?: string }).code,
      }));
    const one = await measure(send);
    const two = await measure(() => Promise.all([send(), send()]));
    figures.push(
      `50 MB base64 photo → ${one.result.status}, peak RSS ${(one.peak / MiB).toFixed(0)} MiB; two at once → ${two.result.map((answer) => answer.status).join(',')}, peak RSS ${(two.peak / MiB).toFixed(0)} MiB`,
    );
    expect(one.result.status).toBe(201);
    // One is always let in; the other is taken too or told to come back (the budget), never a 5xx from a full heap.
    expect(two.result.some((answer) => answer.status === 201)).toBe(true);
    for (const answer of two.result) expect(answer.status === 201 || answer.code === 'media_busy').toBe(true);
    // The memory line of every process (512 MiB), models loaded or not: the JSON body's base64 is
    // decoded as it streams in, never held as text (2026-11-28: one 418–434 MiB, two at once
    // 421–460 MiB; 498–546 and 669–747 MiB while the body was parsed whole).
    expect(one.peak, `one upload: peak RSS ${(one.peak / MiB).toFixed(0)} MiB`).toBeLessThanOrEqual(512 * MiB);
    expect(two.peak, `two at once: peak RSS ${(two.peak / MiB).toFixed(0)} MiB`).toBeLessThanOrEqual(512 * MiB);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect(service.output()).not.toMatch(/heap out of memory/i);
  });

  it('stays bounded while a 200 MB video is streamed in', { timeout: 300_000 }, async (context) => {
    const videos = Object.keys(paths).find((path) => /^\/v1\/pets\/\{[^}]+\}\/videos$/.test(path));
    if (!videos || !('/v1/pets' in paths)) {
      context.skip('POST /v1/pets/{petId}/videos does not exist yet (pets work): the 200 MB video measurement runs once it does');
    }
    const pet = await fetch(`${service.url}/v1/pets`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'memory' }),
    });
    expect(pet.status).toBe(201);
    const petId = ((await pet.json()) as { id: string }).id;
    // An MP4 `ftyp` box, then zeros up to 200 MB minus a little for the multipart framing.
    const ftyp = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');
    const { body, contentType } = streamedMultipart({}, { field: 'file', name: 'sleep.mp4', type: 'video/mp4', head: ftyp, size: 200 * 1000 * 1000 - 1024 });
    const { result, baseline, peak } = await measure(() =>
      fetch(`${service.url}${videos!.replace(/\{[^}]+\}/, encodeURIComponent(petId))}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': contentType },
        body,
        duplex: 'half',
      } as RequestInit).then((response) => response.status),
    );
    figures.push(`200 MB video → ${result}, RSS +${((peak - baseline) / MiB).toFixed(0)} MiB`);
    expect(result).toBeLessThan(500);
    expect(peak - baseline, `RSS grew by ${((peak - baseline) / MiB).toFixed(0)} MiB`).toBeLessThan(MAX_RSS_GROWTH);
  });
});

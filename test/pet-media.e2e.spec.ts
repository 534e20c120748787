import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ffmpegPath } from '../infrastructure/media/ffmpeg-binaries.ts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, storedBlobKeys, type TestService } from './service.ts';

/**
 * Pet photos and videos through real multipart requests: stored media records, identical bytes,
 * the 100-photos-per-24-hours rule (also under parallel requests), videos probed with ffprobe,
 * and bad uploads — each a precise 4xx with nothing stored and no temporary file left.
 * Test videos are made by ffmpeg itself (the build the service runs: infrastructure/media/ffmpeg-binaries.ts).
 */

let service: TestService;
let key = '';
let otherKey = '';
const work = mkdtempSync(join(tmpdir(), 'pet-media-'));
const run = promisify(execFile);
const videos: Record<string, Buffer> = {};

const ffmpeg = async (args: string[], out: string): Promise<Buffer> => {
  const path = join(work, out);
  await run(ffmpegPath(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-t', '2', ...args, path]);
  return readFileSync(path);
};

beforeAll(async () => {
  service = await startTestService({ referenceDataImport: false } as never);
  key = (await service.createAccount({ name: 'media' })).api_key;
  otherKey = (await service.createAccount({ name: 'media other' })).api_key;
  videos.mp4 = await ffmpeg(['-c:v', 'mpeg4', '-pix_fmt', 'yuv420p'], 'clip.mp4');
  videos.faststart = await ffmpeg(['-c:v', 'mpeg4', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'], 'fast.mp4');
  videos.webm = await ffmpeg(['-c:v', 'libvpx', '-b:v', '200k'], 'clip.webm');
  videos.avi = await ffmpeg(['-c:v', 'mpeg4'], 'clip.avi');
  videos.mov = await ffmpeg(['-c:v', 'mpeg4', '-f', 'mov'], 'clip.mov');
  videos.mpeg = await ffmpeg(['-r', '25', '-c:v', 'mpeg1video', '-f', 'mpeg'], 'clip.mpg');
  videos.threegp = await ffmpeg(['-c:v', 'mpeg4', '-f', '3gp'], 'clip.3gp');
}, 120_000);

afterAll(async () => {
  await service?.dispose();
  rmSync(work, { recursive: true, force: true });
});

/** A PNG whose bytes depend on `seed` (distinct seeds → distinct content hashes). */
const png = (seed: number, size = 8): Promise<Buffer> =>
  sharp({ create: { width: size, height: size, channels: 3, background: { r: seed % 256, g: Math.floor(seed / 256) % 256, b: 77 } } }).png().toBuffer();

const newPet = async (apiKey = key): Promise<string> => {
  const response = await service.request('POST', '/v1/pets', { key: apiKey, body: { name: 'media pet' } });
  expect(response.status).toBe(201);
  return response.body.id;
};

const upload = async (path: string, form: FormData, apiKey = key) => {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
};

const photoForm = (files: Buffer[], fields: Record<string, string> = {}, type = 'image/png') => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  files.forEach((file, index) => form.append('images', new Blob([file], { type }), `photo-${index}.png`));
  return form;
};

const videoForm = (file: Buffer | null, fields: Record<string, string> = {}, name = 'clip.mp4', type = 'video/mp4') => {
  const form = new FormData();
  for (const [field, value] of Object.entries(fields)) form.append(field, value);
  if (file) form.append('file', new Blob([file], { type }), name);
  return form;
};

const tempFiles = () => {
  const dir = join(service.dataDir, 'uploads-tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
};
const blobCount = async () => (await storedBlobKeys(service)).length;
const mediaOf = async (petId: string) => (await service.request('GET', `/v1/pets/${petId}/images`, { key })).body as { id: string }[];

describe('pet photos', () => {
  it('stores photos with their poses and ages, lists them on the pet, and answers identical bytes with the existing record', async () => {
    const petId = await newPet();
    const [a, b] = [await png(1, 40), await png(2, 30)];
    const added = await upload(`/v1/pets/${petId}/images`, photoForm([a, b], { poses: '{"0":"side","1":"top"}', age_years: '1', age_months: '3', description: 'garden' }));
    expect(added.status).toBe(201);
    expect(added.body).toHaveLength(2);
    expect(added.body[0]).toMatchObject({ pet_id: petId, kind: 'photo', pose: 'side', width: 40, height: 40, mime_type: 'image/png', age_years: 1, age_months: 3, pet_age_months: 15, description: 'garden', review_status: 'pending', upload_error: false });
    expect(added.body[1]).toMatchObject({ pose: 'top', width: 30 });
    const again = await upload(`/v1/pets/${petId}/images`, photoForm([b]));
    expect(again.status).toBe(200);
    expect(again.body.map((m: { id: string }) => m.id)).toEqual([added.body[1].id]);
    expect((await mediaOf(petId)).map((m) => m.id)).toEqual(added.body.map((m: { id: string }) => m.id));
    const pet = await service.request('GET', `/v1/pets/${petId}`, { key });
    expect(pet.body.images).toHaveLength(2);
    expect(tempFiles()).toEqual([]);
  });

  it('creates a pet with photos in one multipart request', async () => {
    const form = photoForm([await png(3), await png(4)], { name: 'Multi', breed_id: 'abys', poses: '{"1":"face"}', age_years: '2', age_months: '0', body_condition_score: '4' });
    const created = await upload('/v1/pets', form);
    expect(created.status, JSON.stringify(created.body)).toBe(400); // reference data is not imported here: unknown breed
    const ok = await upload('/v1/pets', photoForm([await png(3), await png(4)], { name: 'Multi', species_id: '1', poses: '{"1":"face"}', age_years: '2', age_months: '0', body_condition_score: '4' }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ name: 'Multi', species_id: '1', age_years: 2, body_condition_score: 4 });
    expect(ok.body.images.map((m: { pose: string | null; pet_age_months: number }) => [m.pose, m.pet_age_months])).toEqual([
      [null, 24],
      ['face', 24],
    ]);
    const bad = await upload('/v1/pets', photoForm([await png(5)], { name: 'Bad', age_months: '12' }));
    expect(bad.status).toBe(400);
  });

  it('refuses bad photo uploads precisely, storing nothing', async () => {
    const petId = await newPet();
    const blobsBefore = await blobCount();
    const cases: [FormData, number, string][] = [
      [photoForm([await png(10)], { poses: '{"0":"upside-down"}' }), 400, 'validation_failed'],
      [photoForm([await png(11)], { poses: '{"3":"side"}' }), 400, 'validation_failed'],
      [photoForm([await png(12)], { poses: 'not json' }), 400, 'validation_failed'],
      [photoForm([await png(13)], { age_months: '12' }), 400, 'validation_failed'],
      [photoForm([await png(14)], { age_years: 'old' }), 400, 'validation_failed'],
      [photoForm([await png(15)], { colour: 'red' }), 400, 'validation_failed'],
      [photoForm(await Promise.all(Array.from({ length: 21 }, (_, i) => png(100 + i)))), 413, 'payload_too_large'],
      [photoForm([Buffer.from('just some text, not a picture')]), 415, 'unsupported_media_type'],
      [photoForm([Buffer.alloc(0)]), 400, 'invalid_media'],
      [photoForm([(await png(16, 64)).subarray(0, 60)]), 400, 'invalid_media'],
      [photoForm([], { description: 'no file' }), 400, 'validation_failed'],
    ];
    for (const [form, status, code] of cases) {
      const response = await upload(`/v1/pets/${petId}/images`, form);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.code).toBe(code);
    }
    const json = await service.request('POST', `/v1/pets/${petId}/images`, { key, body: { images: [] } });
    expect(json.status).toBe(415);
    // Malformed multipart bodies (found by the fuzzer): no boundary, data ending mid-part.
    const noBoundary = await service.request('POST', `/v1/pets/${petId}/images`, { key, headers: { 'content-type': 'multipart/form-data' }, raw: 'x' });
    expect(noBoundary.status).toBe(400);
    const cut = await service.request('POST', '/v1/pets', {
      key,
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      raw: '--abc\r\n[]--abc--\r\n',
    });
    expect(cut.status).toBe(400);
    expect(cut.body.code).toBe('validation_failed');
    expect(await mediaOf(petId)).toEqual([]);
    expect(await blobCount()).toBe(blobsBefore);
    expect(tempFiles()).toEqual([]);
  });

  it('a photo over 50 MB answers 413 and leaves nothing behind', async () => {
    const petId = await newPet();
    const big = Buffer.alloc(50 * 1024 * 1024 + 1024);
    (await png(30)).copy(big);
    const response = await upload(`/v1/pets/${petId}/images`, photoForm([big]));
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
    expect(await mediaOf(petId)).toEqual([]);
    expect(tempFiles()).toEqual([]);
  });

  it('another account’s pet answers 403 before its body is read, a missing one 404', async () => {
    const petId = await newPet();
    expect((await upload(`/v1/pets/${petId}/images`, photoForm([await png(20)]), otherKey)).status).toBe(403);
    expect((await upload(`/v1/pets/${petId}/videos`, videoForm(videos.mp4), otherKey)).status).toBe(403);
    expect((await upload('/v1/pets/no-such-pet/images', photoForm([await png(20)]))).status).toBe(404);
    expect(await mediaOf(petId)).toEqual([]);
  });

  it('allows 100 new photos per pet in 24 hours: a crossing batch is refused whole with the figures', async () => {
    const petId = await newPet();
    for (let batch = 0; batch < 5; batch++) {
      const files = await Promise.all(Array.from({ length: 19 }, (_, i) => png(1000 + batch * 19 + i)));
      expect((await upload(`/v1/pets/${petId}/images`, photoForm(files))).status).toBe(201);
    }
    // 95 stored; 6 more would cross 100, identical bytes do not count.
    const crossing = await upload(`/v1/pets/${petId}/images`, photoForm(await Promise.all(Array.from({ length: 6 }, (_, i) => png(2000 + i)))));
    expect(crossing.status).toBe(429);
    expect(crossing.body).toMatchObject({ code: 'pet_upload_rate_exceeded', limit: 100, window_hours: 24, recent_uploads: 95, requested: 6 });
    // Every 429 says when to retry: here when the oldest counted photo (just uploaded) leaves the 24-hour window.
    expect(Number(crossing.headers.get('retry-after'))).toBeGreaterThan(24 * 3600 - 120);
    expect(Number(crossing.headers.get('retry-after'))).toBeLessThanOrEqual(24 * 3600);
    expect(await mediaOf(petId)).toHaveLength(95);
    const repeat = await upload(`/v1/pets/${petId}/images`, photoForm([await png(1000), await png(1001)]));
    expect(repeat.status).toBe(200);
    const fits = await upload(`/v1/pets/${petId}/images`, photoForm([await png(1000), ...(await Promise.all(Array.from({ length: 5 }, (_, i) => png(3000 + i))))]));
    expect(fits.status).toBe(201);
    expect(fits.body).toHaveLength(6);
    expect(await mediaOf(petId)).toHaveLength(100);
    expect((await upload(`/v1/pets/${petId}/images`, photoForm([await png(4000)]))).status).toBe(429);
    expect(tempFiles()).toEqual([]);
  }, 120_000);

  it('parallel batches never take a pet past 100 photos', async () => {
    const petId = await newPet();
    const batches = await Promise.all(
      Array.from({ length: 6 }, (_, batch) => Promise.all(Array.from({ length: 20 }, (_, i) => png(5000 + batch * 20 + i)))),
    );
    const blobsBefore = await blobCount();
    const results = await Promise.all(batches.map((files) => upload(`/v1/pets/${petId}/images`, photoForm(files))));
    const accepted = results.filter((result) => result.status === 201).length;
    expect(results.every((result) => result.status === 201 || result.status === 429)).toBe(true);
    expect(accepted).toBe(5);
    expect(await mediaOf(petId)).toHaveLength(100);
    expect(await blobCount() - blobsBefore).toBe(100); // refused batches leave no blob
  }, 120_000);

  it('deleting a pet deletes its blobs', async () => {
    const petId = await newPet();
    const before = await blobCount();
    await upload(`/v1/pets/${petId}/images`, photoForm([await png(6000), await png(6001)]));
    await upload(`/v1/pets/${petId}/videos`, videoForm(videos.mp4));
    expect(await blobCount()).toBe(before + 3);
    expect((await service.request('DELETE', `/v1/pets/${petId}`, { key })).status).toBe(200);
    expect(await blobCount()).toBe(before);
  });
});

describe('pet videos', () => {
  it('stores MP4, MOV, WebM, AVI, MPEG and 3GP videos with what ffprobe reads', async () => {
    const petId = await newPet();
    const expected: [Buffer, string, string, string][] = [
      [videos.mp4, 'clip.mp4', 'video/mp4', 'mpeg4'],
      [videos.mov, 'clip.mov', 'video/quicktime', 'mpeg4'],
      [videos.webm, 'clip.webm', 'video/webm', 'vp8'],
      [videos.avi, 'clip.avi', 'video/vnd.avi', 'mpeg4'],
      [videos.mpeg, 'clip.mpg', 'video/mpeg', 'mpeg1video'],
      [videos.threegp, 'clip.3gp', 'video/3gpp', 'mpeg4'],
    ];
    for (const [bytes, name, mime, codec] of expected) {
      const response = await upload(`/v1/pets/${petId}/videos`, videoForm(bytes, { age_years: '3', age_months: '11', description: 'asleep' }, name, 'application/octet-stream'));
      expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(201);
      expect(response.body).toMatchObject({ pet_id: petId, kind: 'video', mime_type: mime, width: 160, height: 120, video_codec: codec, age_years: 3, age_months: 11, pet_age_months: 47, description: 'asleep', size_bytes: bytes.length, original_filename: name });
      expect(response.body.duration_seconds).toBeGreaterThan(1.5);
      expect(response.body.duration_seconds).toBeLessThan(2.5);
    }
    const again = await upload(`/v1/pets/${petId}/videos`, videoForm(videos.mp4));
    expect(again.status).toBe(200);
    expect(await mediaOf(petId)).toHaveLength(6);
    expect(tempFiles()).toEqual([]);
  });

  it('refuses bad videos precisely, storing nothing', async () => {
    const petId = await newPet();
    const blobsBefore = await blobCount();
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: 'red' } }).gif().toBuffer();
    const cases: [FormData, number, string][] = [
      [videoForm(gif, {}, 'cat.mp4'), 415, 'unsupported_media_type'],
      [videoForm(Buffer.alloc(0)), 400, 'invalid_media'],
      [videoForm(videos.mp4.subarray(0, Math.floor(videos.mp4.length / 2))), 400, 'invalid_media'],
      [videoForm(videos.faststart.subarray(0, Math.floor(videos.faststart.length * 0.8))), 400, 'invalid_media'],
      [videoForm(Buffer.concat([videos.mp4.subarray(0, 32), Buffer.alloc(50_000)])), 400, 'invalid_media'],
      [videoForm(null, { description: 'no file' }), 400, 'validation_failed'],
      [videoForm(videos.mp4, { age_months: '12' }), 400, 'validation_failed'],
      [videoForm(videos.mp4, { pose: 'side' }), 400, 'validation_failed'],
    ];
    for (const [form, status, code] of cases) {
      const response = await upload(`/v1/pets/${petId}/videos`, form);
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.code).toBe(code);
    }
    const twoFiles = videoForm(videos.mp4);
    twoFiles.append('file', new Blob([videos.webm]), 'b.webm');
    expect((await upload(`/v1/pets/${petId}/videos`, twoFiles)).status).toBe(413);
    const wrongField = new FormData();
    wrongField.append('video', new Blob([videos.mp4]), 'a.mp4');
    expect((await upload(`/v1/pets/${petId}/videos`, wrongField)).status).toBe(400);
    expect(await mediaOf(petId)).toEqual([]);
    expect(await blobCount()).toBe(blobsBefore);
    expect(tempFiles()).toEqual([]);
  });

  it('a client that disconnects mid-upload leaves no media, blob or temporary file', async () => {
    const petId = await newPet();
    const blobsBefore = await blobCount();
    const boundary = '----disconnect';
    const url = new URL(`${service.url}/v1/pets/${petId}/videos`);
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(50 * 1024 * 1024) },
      });
      req.on('error', () => resolve());
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
      req.write(videos.mp4);
      req.write(Buffer.alloc(1024 * 1024));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    // The server notices the closed connection and cleans up.
    for (let i = 0; i < 50 && tempFiles().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tempFiles()).toEqual([]);
    expect(await mediaOf(petId)).toEqual([]);
    expect(await blobCount()).toBe(blobsBefore);
  });
});

import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, storedBlobKeys, type TestService } from './service.ts';
import { CAT_RGB, DOG_RGB, drawScene, UNSAFE_RGB, visionDouble, type VisionDouble } from './vision-double.ts';
import { startReceiver, waitUntil, type Receiver } from './webhook-receiver.ts';

/**
 * Image uploads end to end, on real sockets with real image files made by sharp: every format,
 * base64 variants, resize, the decode guards, the public file url, the pipeline's state machine
 * with its webhook events (models replaced by the deterministic test double), auto-crop,
 * upload-sync's bounded wait, the quota race, and another account's image.
 */

let service: TestService;
let vision: VisionDouble;
let receiver: Receiver;
let key = '';
let accountId = '';

beforeAll(async () => {
  vision = visionDouble();
  service = await startTestService({ webhookAllowPrivateTargets: true, uploadSyncTimeoutMs: 20_000 }, undefined, { vision });
  const account = await service.createAccount();
  key = account.api_key;
  accountId = account.account_id;
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await service?.dispose();
});

type Upload = { status: number; body: any; headers: Headers };

const uploadFile = async (bytes: Buffer, options: { filename?: string; type?: string; fields?: Record<string, string>; path?: string; apiKey?: string } = {}): Promise<Upload> => {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(bytes)], { type: options.type ?? 'application/octet-stream' }), options.filename ?? 'photo.bin');
  const response = await fetch(`${service.url}${options.path ?? '/v1/images/upload'}`, { method: 'POST', headers: { 'x-api-key': options.apiKey ?? key }, body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
};

const statusOf = async (id: string, apiKey = key) => service.request('GET', `/v1/images/${id}/status`, { key: apiKey });
const waitForStatus = (id: string, status: string) =>
  waitUntil(async () => ((await statusOf(id)).body?.status === status ? true : undefined), 20_000, `image ${id} ${status}`);

const catPhoto = (format: 'jpeg' | 'png' | 'webp' | 'gif' = 'jpeg') => drawScene(400, 300, [{ rgb: CAT_RGB, left: 40, top: 60, width: 160, height: 120 }], format);

describe('uploading images', () => {
  for (const [format, mime, ext] of [
    ['jpeg', 'image/jpeg', 'jpg'],
    ['png', 'image/png', 'png'],
    ['gif', 'image/gif', 'gif'],
    ['webp', 'image/webp', 'webp'],
  ] as const) {
    it(`accepts a ${format} and serves it at its public url`, async () => {
      const upload = await uploadFile(await catPhoto(format), { filename: `cat.${ext}`, type: 'text/plain', fields: { sub_id: 'user-1' } });
      expect(upload.status, JSON.stringify(upload.body)).toBe(201);
      expect(upload.body).toMatchObject({ sub_id: 'user-1', width: 400, height: 300, mime_type: mime, original_filename: `cat.${ext}`, pending: 1, approved: 0, status: 'to_be_reviewed' });
      expect(upload.body.links.status).toBe(`/v1/images/${upload.body.id}/status`);
      expect(upload.body.url).toMatch(new RegExp(`/v1/images/files/[A-Za-z0-9_-]{32}\\.${ext}$`));
      expect(upload.body.url).not.toContain(upload.body.id);

      // No API key needed; the type from the bytes; caching headers; conditional requests.
      const file = await fetch(upload.body.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe(mime);
      expect(file.headers.get('cache-control')).toMatch(/max-age=\d+/);
      expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = file.headers.get('etag');
      expect(etag).toBeTruthy();
      const bytes = Buffer.from(await file.arrayBuffer());
      expect((await sharp(bytes).metadata()).width).toBe(400);
      const again = await fetch(upload.body.url, { headers: { 'if-none-match': etag! } });
      expect(again.status).toBe(304);
      const since = await fetch(upload.body.url, { headers: { 'if-modified-since': file.headers.get('last-modified')! } });
      expect(since.status).toBe(304);
      // The small sizes are made by a processor just after the answer (med stands in until then).
      const thumb = await waitUntil(async () => {
        const answer = await fetch(`${upload.body.url}?size=thumb`);
        expect(answer.status).toBe(200);
        return answer.headers.get('etag')?.endsWith('.thumb"') ? answer : (await answer.arrayBuffer(), undefined);
      }, 20_000, 'thumb made');
      expect(thumb.headers.get('etag')).not.toBe(etag);
      expect(thumb.headers.get('content-type')).toBe(mime);
      const thumbMeta = await sharp(Buffer.from(await thumb.arrayBuffer())).metadata();
      expect(Math.max(thumbMeta.width!, thumbMeta.height!)).toBe(150);
    });
  }

  it('answers 404 for a url with a wrong token or extension', async () => {
    const upload = await uploadFile(await catPhoto('png'));
    expect((await fetch(upload.body.url.replace(/\.png$/, '.jpg'))).status).toBe(404);
    expect((await fetch(`${service.url}/v1/images/files/${'A'.repeat(32)}.png`)).status).toBe(404);
  });

  it('accepts base64 as a data URL, bare, url-safe, and as multipart fields', async () => {
    const png = await catPhoto('png');
    const dataUrl = await service.request('POST', '/v1/images/upload', { key, body: { type: 'base64', image: `data:image/png;base64,${png.toString('base64')}`, sub_id: 'b64' } });
    expect(dataUrl.status, JSON.stringify(dataUrl.body)).toBe(201);
    expect(dataUrl.body).toMatchObject({ mime_type: 'image/png', width: 400, sub_id: 'b64' });
    const bare = await service.request('POST', '/v1/images/upload', { key, body: { type: 'base64', image: png.toString('base64'), original_filename: 'x.png' } });
    expect(bare.status).toBe(201);
    expect(bare.body.original_filename).toBe('x.png');
    const urlSafe = await service.request('POST', '/v1/images/upload', { key, body: { type: 'base64', image: png.toString('base64url') } });
    expect(urlSafe.status).toBe(201);
    const form = new FormData();
    form.append('type', 'base64');
    form.append('image', (await catPhoto('jpeg')).toString('base64'));
    const multipart = await fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(multipart.status).toBe(201);
    expect(((await multipart.json()) as { mime_type: string }).mime_type).toBe('image/jpeg');
    const broken = await service.request('POST', '/v1/images/upload', { key, body: { type: 'base64', image: '###not base64###' } });
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('validation_failed');
  });

  it('resizes to fit width/height', async () => {
    const upload = await uploadFile(await catPhoto('jpeg'), { fields: { width: '200', height: '200' } });
    expect(upload.status).toBe(201);
    expect(upload.body).toMatchObject({ width: 200, height: 150 });
    const bytes = Buffer.from(await (await fetch(upload.body.url)).arrayBuffer());
    expect((await sharp(bytes).metadata()).width).toBe(200);
  });

  it('refuses a bad width with a validation error', async () => {
    const upload = await uploadFile(await catPhoto('jpeg'), { fields: { width: 'wide' } });
    expect(upload.status).toBe(400);
    expect(upload.body.code).toBe('validation_failed');
  });

  it('decides the type from the bytes: not an image → 415, AVIF → 415', async () => {
    const text = await uploadFile(Buffer.from('just some text, not a picture at all'), { filename: 'cat.jpg', type: 'image/jpeg' });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    const pdf = await uploadFile(Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n'), { filename: 'cat.png' });
    expect(pdf.status).toBe(415);
    const avif = await uploadFile(await sharp({ create: { width: 64, height: 64, channels: 3, background: CAT_RGB } }).avif().toBuffer(), { filename: 'cat.avif' });
    expect(avif.status).toBe(415);
  });

  it('answers precise 400s: zero bytes, truncated, polyglot, pixel bomb — and spends no quota on them', async () => {
    const before = (await service.request('GET', '/v1/accounts/quota', { key })).body.usage;
    const empty = await uploadFile(Buffer.alloc(0));
    expect(empty.status).toBe(400);
    expect(empty.body.code).toBe('image_empty');
    const noise = Buffer.alloc(300 * 200 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const jpeg = await sharp(noise, { raw: { width: 300, height: 200, channels: 3 } }).jpeg().toBuffer();
    const truncated = await uploadFile(jpeg.subarray(0, Math.floor(jpeg.length / 2)));
    expect(truncated.status).toBe(400);
    expect(truncated.body.code).toBe('image_truncated');
    const png = await sharp(noise, { raw: { width: 300, height: 200, channels: 3 } }).png().toBuffer();
    expect((await uploadFile(png.subarray(0, png.length - 100))).body.code).toBe('image_truncated');
    const zipTail = Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(200, 7)]);
    const polyglot = await uploadFile(Buffer.concat([jpeg, zipTail]));
    expect(polyglot.status).toBe(400);
    expect(polyglot.body.code).toBe('image_polyglot');
    const html = await uploadFile(Buffer.concat([png, Buffer.from('<html><script>alert(1)</script></html>')]));
    expect(html.body.code).toBe('image_polyglot');
    const bomb = await uploadFile(pixelBomb(20_000));
    expect(bomb.status).toBe(400);
    expect(bomb.body.code).toBe('image_too_many_pixels');
    expect((await service.request('GET', '/v1/accounts/quota', { key })).body.usage).toBe(before);
  });

  it('cuts off a photo over 50 MB while it streams (413)', async () => {
    const head = await catPhoto('jpeg');
    const big = Buffer.concat([head, Buffer.alloc(51 * 1024 * 1024 - head.length)]);
    const upload = await uploadFile(big);
    expect(upload.status).toBe(413);
    expect(upload.body.code).toBe('payload_too_large');
  });

  it('needs a file or base64 image', async () => {
    const none = await service.request('POST', '/v1/images/upload', { key, body: { sub_id: 'x' } });
    expect(none.status).toBe(400);
    const form = new FormData();
    form.append('sub_id', 'x');
    const response = await fetch(`${service.url}/v1/images/upload`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(response.status).toBe(400);
    // Multipart without a boundary, and a part cut off mid-way: the client's fault, 400.
    const noBoundary = await service.request('POST', '/v1/images/upload', { key, raw: '{"type":"FILE"}', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.body.code).toBe('validation_failed');
    const cut = await service.request('POST', '/v1/images/upload', {
      key,
      raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expect(cut.status).toBe(400);
  });
});

describe('the pipeline', () => {
  it('moves to_be_reviewed → clean → labelled, with analysis, tags and webhook events', async () => {
    const hook = await service.request('POST', '/v1/webhooks', {
      key,
      body: { url: receiver.url, description: 'images', enabled_events: ['image.uploaded', 'image.processed', 'image.labels_created'] },
    });
    expect(hook.status).toBe(201);
    const upload = await uploadFile(await catPhoto('jpeg'), { fields: { sub_id: 'pipeline' } });
    expect(upload.status).toBe(201);
    const id = upload.body.id as string;
    await waitForStatus(id, 'labelled');
    const analysis = await service.request('GET', `/v1/images/${id}/analysis`, { key });
    expect(analysis.status).toBe(200);
    expect(analysis.body).toHaveLength(1);
    const [entry] = analysis.body;
    expect(entry).toMatchObject({ image_id: id, moderation_labels: [] });
    expect(entry.vendor).toContain('test-double');
    const cat = entry.labels.find((label: { Name: string }) => label.Name === 'Cat');
    expect(cat.Parents).toContainEqual({ Name: 'Animal' });
    expect(cat.Instances).toHaveLength(1);
    const box = cat.Instances[0].BoundingBox;
    // Drawn at 40,60 160×120 of 400×300.
    expect(box.Left).toBeCloseTo(0.1, 1);
    expect(box.Top).toBeCloseTo(0.2, 1);
    expect(box.Width).toBeCloseTo(0.4, 1);
    expect(box.Height).toBeCloseTo(0.4, 1);

    // (Images of earlier tests may still be on their way through the pipeline: their events reach
    // this endpoint too. Only this image's count.)
    const bodiesOfImage = () => receiver.received.map((event) => JSON.parse(event.body)).filter((body) => body.id === id);
    const bodies = await waitUntil(async () => (bodiesOfImage().length >= 3 ? bodiesOfImage() : undefined), 20_000, "the image's three webhook events");
    const types = bodies.map((body) => body._metadata.event_type);
    expect(types).toEqual(['image.uploaded', 'image.processed', 'image.labels_created']);
    const processed = bodies.find((body) => body.id === id && body._metadata.event_type === 'image.processed');
    expect(processed.status).toBe('clean');
    const labelled = bodies.find((body) => body.id === id && body._metadata.event_type === 'image.labels_created');
    expect(labelled).toMatchObject({ status: 'labelled', species_id: '1' });
    expect(labelled.tags).toContain('cat');
    expect(labelled.tags).toContain('landscape');
  });

  it('flags an unsafe image: unsafe with reasons, then labelled', async () => {
    const upload = await uploadFile(await drawScene(300, 300, [{ rgb: UNSAFE_RGB, left: 0, top: 0, width: 300, height: 200 }], 'png'));
    const id = upload.body.id as string;
    await waitForStatus(id, 'labelled');
    const analysis = await service.request('GET', `/v1/images/${id}/analysis`, { key });
    expect(analysis.body[0].moderation_labels[0].Name).toBe('Test Red');
  });

  it('upload-sync: auto-crops a two-animal image into child images and answers species, breeds, colours', async () => {
    const scene = await drawScene(600, 400, [
      { rgb: CAT_RGB, left: 20, top: 50, width: 200, height: 200 },
      { rgb: DOG_RGB, left: 350, top: 100, width: 220, height: 250 },
    ]);
    const upload = await uploadFile(scene, { path: '/v1/images/upload-sync', filename: 'pair.jpg' });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    const body = upload.body;
    expect(body.status).toBe('labelled');
    expect(body.species_id).toBe('2'); // the dog patch is the larger: the double is more confident about it
    expect(body.childImages).toHaveLength(2);
    const [first, second] = body.childImages;
    expect(first.parent_image_id).toBe(body.id);
    expect(first.crop_box.left).toBeCloseTo(20 / 600, 2);
    expect(second.crop_box.left).toBeCloseTo(350 / 600, 2);
    // JPEG softens the patch edges by a pixel or two.
    expect(Math.abs(first.width - 200)).toBeLessThanOrEqual(4);
    expect(Math.abs(first.height - 200)).toBeLessThanOrEqual(4);
    const childBytes = Buffer.from(await (await fetch(second.url)).arrayBuffer());
    const meta = await sharp(childBytes).metadata();
    expect(Math.abs(meta.width! - 220)).toBeLessThanOrEqual(4);
    expect(Math.abs(meta.height! - 250)).toBeLessThanOrEqual(4);
    expect(body.suggested_breed_ids).toContain('golden-retriever');
    expect(body.tags).toEqual(expect.arrayContaining(['cat', 'dog', 'landscape']));
    expect(body.colours).toHaveLength(1);
    expect(body.colours[0].id).toMatch(/^dog-/);
    // Children go through the pipeline as images of their own.
    await waitForStatus(first.id, 'labelled');
    expect((await statusOf(second.id)).status).toBe(200);
  });

  it('upload-sync with auto_crop=false makes no children; a cat maps to the Siamese breed', async () => {
    const upload = await service.request('POST', '/v1/images/upload-sync', {
      key,
      body: { type: 'base64', image: (await catPhoto('png')).toString('base64'), auto_crop: false },
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(201);
    expect(upload.body.childImages).toEqual([]);
    expect(upload.body.species_id).toBe('1');
    expect(upload.body.suggested_breed_ids).toContain('siam');
    expect(upload.body.colours[0].id).toMatch(/^cat-/);
  });

  it('another account cannot see an image’s status or analysis (403), a missing id is 404', async () => {
    const upload = await uploadFile(await catPhoto('jpeg'));
    const other = await service.createAccount({ name: 'Other' });
    expect((await statusOf(upload.body.id, other.api_key)).status).toBe(403);
    expect((await service.request('GET', `/v1/images/${upload.body.id}/analysis`, { key: other.api_key })).status).toBe(403);
    expect((await statusOf('nope-not-here')).status).toBe(404);
  });
});

describe('the monthly upload quota', () => {
  it('reads and sets the quota; parallel uploads at remaining = 1 store exactly one image', async () => {
    const account = await service.createAccount({ name: 'Quota' });
    const quota = await service.request('GET', '/v1/accounts/quota', { key: account.api_key });
    expect(quota.body).toEqual({ quota: 1000, usage: 0, remaining: 1000 });
    expect((await service.request('PUT', `/v1/accounts/${account.account_id}/quota`, { key: account.api_key, body: { imageUploadQuota: 2 } })).status).toBe(403);
    const set = await service.request('PUT', `/v1/accounts/${account.account_id}/quota`, { key: ADMIN_KEY, body: { imageUploadQuota: 3 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ quota: 3, usage: 0, remaining: 3 });
    expect((await service.request('PUT', '/v1/accounts/no-such-account/quota', { key: ADMIN_KEY, body: { imageUploadQuota: 3 } })).status).toBe(404);
    const photo = await catPhoto('png');
    // Which images have files (blob names are img.<image id>.<size>[.type]; the small sizes follow later).
    const imagesWithFiles = async () => new Set((await storedBlobKeys(service)).flatMap((name) => /^img\.([^.]+)\./.exec(name)?.[1] ?? []));
    const accepted: string[] = [];
    for (let i = 0; i < 2; i++) {
      const upload = await uploadFile(photo, { apiKey: account.api_key });
      expect(upload.status).toBe(201);
      accepted.push(upload.body.id);
    }
    expect((await service.request('GET', '/v1/accounts/quota', { key: account.api_key })).body).toEqual({ quota: 3, usage: 2, remaining: 1 });
    const before = await imagesWithFiles();
    expect(accepted.every((id) => before.has(id))).toBe(true);

    const results = await Promise.all(Array.from({ length: 12 }, () => uploadFile(photo, { apiKey: account.api_key })));
    const statuses = results.map((result) => result.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(11);
    expect(results.filter((result) => result.status === 400).every((result) => result.body.code === 'upload_quota_exceeded')).toBe(true);
    // Nothing stored for the refused ones: the files of exactly one image more.
    const winner = results.find((result) => result.status === 201)!.body.id as string;
    expect([...(await imagesWithFiles())].filter((id) => !before.has(id))).toEqual([winner]);
    expect((await service.request('GET', '/v1/accounts/quota', { key: account.api_key })).body).toEqual({ quota: 3, usage: 3, remaining: 0 });
    expect((await uploadFile(photo, { apiKey: account.api_key })).body.code).toBe('upload_quota_exceeded');
    const usage = await service.request('GET', '/v1/accounts/usage', { key: account.api_key });
    expect(usage.body).toEqual([{ sub_id: null, images: 3, votes: 0, favourites: 0, pets: 0 }]);
  });

  it('counts uploads per sub_id in the usage, not the auto-cropped children', async () => {
    const account = await service.createAccount({ name: 'Usage' });
    const scene = await drawScene(400, 300, [
      { rgb: CAT_RGB, left: 10, top: 10, width: 100, height: 100 },
      { rgb: DOG_RGB, left: 200, top: 100, width: 150, height: 150 },
    ]);
    const synced = await uploadFile(scene, { path: '/v1/images/upload-sync', apiKey: account.api_key, fields: { sub_id: 'kid' } });
    expect(synced.status).toBe(201);
    expect(synced.body.childImages).toHaveLength(2);
    expect((await uploadFile(scene, { apiKey: account.api_key, fields: { sub_id: 'kid' } })).status).toBe(201);
    const usage = await service.request('GET', '/v1/accounts/usage', { key: account.api_key });
    expect(usage.body).toEqual([{ sub_id: 'kid', images: 2, votes: 0, favourites: 0, pets: 0 }]);
    expect((await service.request('GET', '/v1/accounts/quota', { key: account.api_key })).body.usage).toBe(2);
  });
});

const pngChunk = (type: string, data: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
};

/** A valid grayscale PNG of side × side pixels: small on the wire, side² pixels decoded. */
const pixelBomb = (side: number): Buffer => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.writeUInt8(8, 8);
  const rows = Buffer.alloc((side + 1) * 2000);
  const idat = deflateSync(rows, { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
};

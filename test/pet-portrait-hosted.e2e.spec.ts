import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withVisionProvider } from '../infrastructure/vision/hosted.ts';
import { startTestService, type TestService } from './service.ts';
import { visionDouble } from './vision-double.ts';

/**
 * A portrait with the hosted provider behind the vision port: the detection comes from a local
 * fake of an OpenAI-compatible API (the built-in test double sees no animal in this photo, so the
 * portrait can only come out if the provider's box is used).
 */
let service: TestService;
let server: Server;
let key = '';
let calls = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      calls++;
      const content = JSON.stringify({ animals: [{ label: 'dog', confidence: 0.88, box: { left: 0.25, top: 0.25, width: 0.5, height: 0.5 } }] });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const vision = withVisionProvider(visionDouble(), { url, apiKey: 'sk-test', model: 'fake-vision', timeoutMs: 5_000 });
  service = await startTestService({ referenceDataImport: false } as never, undefined, { vision });
  key = (await service.createAccount({ name: 'hosted portraits' })).api_key;
}, 120_000);

afterAll(async () => {
  await service?.dispose();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('portraits with a hosted vision provider', () => {
  it("uses the provider's box to cut the animal out", async () => {
    const pet = await service.request('POST', '/v1/pets', { key, body: { name: 'Hosted', species_id: '2' } });
    // A purple square (no colour the test double knows) in the middle of a white photo.
    const photo = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ffffff' } })
      .composite([{ input: await sharp({ create: { width: 80, height: 80, channels: 3, background: { r: 120, g: 40, b: 160 } } }).png().toBuffer(), left: 60, top: 60 }])
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('images', new Blob([photo], { type: 'image/png' }), 'purple.png');
    const uploaded = await fetch(`${service.url}/v1/pets/${pet.body.id}/images`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    expect(uploaded.status).toBe(201);
    const portrait = await service.request('POST', `/v1/pets/${pet.body.id}/portrait`, { key, body: { style: 'beach' } });
    expect(portrait.status).toBe(201);
    expect(portrait.body.portrait_style_id).toBe('beach');
    expect(calls).toBe(1);
    const file = await fetch(`${service.url}/v1/pets/${pet.body.id}/images/${portrait.body.id}/file`, { headers: { 'x-api-key': key } });
    const { data } = await sharp(Buffer.from(await file.arrayBuffer())).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let purple = 0;
    let white = 0;
    for (let offset = 0; offset < data.length; offset += 3) {
      if (Math.abs(data[offset] - 120) < 10 && Math.abs(data[offset + 1] - 40) < 10 && Math.abs(data[offset + 2] - 160) < 10) purple++;
      if (data[offset] > 250 && data[offset + 1] > 250 && data[offset + 2] > 250) white++;
    }
    expect(purple).toBeGreaterThan(1024 * 1024 * 0.2);
    expect(white).toBeLessThan(1024 * 1024 * 0.002);
  });
});

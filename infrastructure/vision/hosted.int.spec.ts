import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostedDetect, visionProviderFromEnv, VisionProviderError, withVisionProvider, type VisionProviderConfig } from './hosted.ts';
import type { VisionModels } from './port.ts';

/**
 * The hosted vision provider against a local fake of an OpenAI-compatible chat-completions API:
 * what is sent (model, key, the image as a data URL) and how answers map onto detections — and
 * that a bad answer is an error, not a guess.
 */
type Seen = { path: string; authorization: string | undefined; body: any };
let server: Server;
let base = '';
let seen: Seen[] = [];
let reply: (seen: Seen) => { status: number; body: unknown } = () => ({ status: 500, body: {} });

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const entry: Seen = { path: request.url ?? '', authorization: request.headers.authorization, body: JSON.parse(await readBody(request)) };
    seen.push(entry);
    const answer = reply(entry);
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen = [];
});

const config = (): VisionProviderConfig => ({ url: base, apiKey: 'sk-test', model: 'vision-test-1', timeoutMs: 5_000 });
const chat = (content: string) => ({ status: 200, body: { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] } });
const image = () => sharp({ create: { width: 2000, height: 1000, channels: 3, background: '#4a7' } }).png().toBuffer();

const builtIn = (): VisionModels & { calls: string[] } => {
  const calls: string[] = [];
  return {
    calls,
    moderate: async () => (calls.push('moderate'), { unsafe: false, scores: {}, reasons: [], labels: [], threshold: 0.8 }),
    classify: async () => (calls.push('classify'), []),
    detect: async () => (calls.push('detect'), []),
    examine: async () => (calls.push('examine'), []),
    info: () => [
      { task: 'safety', name: 'builtin-safety', version: '1', licence: 'x', source: 'x' },
      { task: 'detection', name: 'builtin-detector', version: '1', licence: 'x', source: 'x' },
    ],
    close: async () => void calls.push('close'),
  };
};

describe('hosted vision provider', () => {
  it('sends the model, the key and the image, and maps the animals to detections', async () => {
    reply = () =>
      chat(
        '```json\n' +
          JSON.stringify({
            animals: [
              { label: 'Dog', confidence: 0.91, box: { left: 0.1, top: 0.2, width: 0.5, height: 0.7 } },
              { label: 'cat', confidence: 0.12, box: { left: 0.6, top: 0.1, width: 0.2, height: 0.2 } },
              { label: 'cat', confidence: 0.8, box: { left: 0.9, top: 0.5, width: 0.3, height: 0.4 } },
            ],
          }) +
          '\n```',
      );
    const detections = await hostedDetect(config(), await image());
    expect(detections).toEqual([
      { label: 'dog', confidence: 0.91, box: { left: 0.1, top: 0.2, width: 0.5, height: 0.7 } },
      // clipped to the image; the 0.12 one is under the default confidence floor
      { label: 'cat', confidence: 0.8, box: { left: 0.9, top: 0.5, width: expect.closeTo(0.1, 9), height: 0.4 } },
    ]);
    expect(seen).toHaveLength(1);
    expect(seen[0].path).toBe('/v1/chat/completions');
    expect(seen[0].authorization).toBe('Bearer sk-test');
    expect(seen[0].body.model).toBe('vision-test-1');
    const part = seen[0].body.messages[1].content.find((item: { type: string }) => item.type === 'image_url');
    const dataUrl = String(part.image_url.url);
    expect(dataUrl.startsWith('data:image/jpeg;base64,')).toBe(true);
    const sent = await sharp(Buffer.from(dataUrl.split(',')[1], 'base64')).metadata();
    expect([sent.format, sent.width, sent.height]).toEqual(['jpeg', 1024, 512]);
  });

  it('a non-2xx answer, a message that is not JSON or not the expected shape is an error', async () => {
    reply = () => ({ status: 429, body: { error: { message: 'slow down' } } });
    await expect(hostedDetect(config(), await image())).rejects.toThrow(/answered 429/);
    reply = () => chat('I see a lovely dog!');
    await expect(hostedDetect(config(), await image())).rejects.toBeInstanceOf(VisionProviderError);
    reply = () => chat(JSON.stringify({ animals: [{ label: 'dog', confidence: 3, box: { left: 0, top: 0, width: 1, height: 1 } }] }));
    await expect(hostedDetect(config(), await image())).rejects.toThrow(/expected shape/);
  });

  it('behind the port: detection goes to the provider, the rest to the built-in models; unconfigured, nothing changes', async () => {
    reply = () => chat(JSON.stringify({ animals: [] }));
    const models = builtIn();
    const wrapped = withVisionProvider(models, config());
    expect(await wrapped.detect(await image())).toEqual([]);
    await wrapped.moderate(await image());
    await wrapped.classify(await image());
    await wrapped.examine(await image(), [null]);
    expect(models.calls).toEqual(['moderate', 'classify', 'examine']);
    expect(seen).toHaveLength(1);
    expect(wrapped.info().map((model) => [model.task, model.name])).toEqual([
      ['safety', 'builtin-safety'],
      ['detection', 'vision-test-1'],
    ]);
    expect(withVisionProvider(models, null)).toBe(models);
    expect(visionProviderFromEnv({})).toBeNull();
    expect(visionProviderFromEnv({ VISION_PROVIDER_URL: `${base}/`, VISION_PROVIDER_MODEL: 'm' })).toEqual({ url: base, apiKey: null, model: 'm', timeoutMs: 30_000 });
    expect(() => visionProviderFromEnv({ VISION_PROVIDER_URL: base })).toThrow(/VISION_PROVIDER_MODEL/);
  });
});

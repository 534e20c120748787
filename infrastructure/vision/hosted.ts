import sharp from 'sharp';
import { request } from 'undici';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ImageDecodeError } from './decode.ts';
import { DEFAULT_MIN_CONFIDENCE } from './detections.ts';
import type { Detection, ModelInfo, VisionModels } from './port.ts';

/**
 * An optional hosted vision model behind the VisionModels port: object detection (the animals and
 * their boxes, which the image labelling and the pet portraits use) asked of an OpenAI-compatible
 * chat-completions API with the image attached. Configured by environment, never called unless it is:
 *
 *   VISION_PROVIDER_URL         base URL of the API (…/v1); `/chat/completions` is appended
 *   VISION_PROVIDER_API_KEY     sent as `Authorization: Bearer …` (optional for local servers)
 *   VISION_PROVIDER_MODEL       the model name (required with the URL)
 *   VISION_PROVIDER_TIMEOUT_MS  per request (default 30 000)
 *
 * Moderation and classification (with crops and embeddings) stay with the built-in models, which remain the default and work
 * offline. The image is sent as a JPEG of at most 1024 px (boxes are fractions, so size does not
 * matter); the answer must be JSON `{"animals":[{"label","confidence","box":{left,top,width,height}}]}`
 * — anything else is an error (thrown: the caller retries or answers analysis_unavailable), never
 * a guessed detection.
 */
export type VisionProviderConfig = { url: string; apiKey: string | null; model: string; timeoutMs: number };

export class VisionProviderError extends Error {
  override name = 'VisionProviderError';
}

export const visionProviderFromEnv = (env: NodeJS.ProcessEnv = process.env): VisionProviderConfig | null => {
  const url = env.VISION_PROVIDER_URL?.trim();
  if (!url) return null;
  const model = env.VISION_PROVIDER_MODEL?.trim();
  if (!model) throw new Error('VISION_PROVIDER_URL is set but VISION_PROVIDER_MODEL is not: name the hosted model');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('VISION_PROVIDER_URL must be an http(s) URL');
  const timeoutMs = Number(env.VISION_PROVIDER_TIMEOUT_MS ?? 30_000);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error('VISION_PROVIDER_TIMEOUT_MS must be a positive number');
  return { url: url.replace(/\/+$/, ''), apiKey: env.VISION_PROVIDER_API_KEY?.trim() || null, model, timeoutMs };
};

const Fraction = Type.Number({ minimum: 0, maximum: 1 });
const ProviderAnswer = Type.Object({
  animals: Type.Array(
    Type.Object({
      label: Type.String({ minLength: 1, maxLength: 64 }),
      confidence: Fraction,
      box: Type.Object({ left: Fraction, top: Fraction, width: Fraction, height: Fraction }),
    }),
    { maxItems: 100 },
  ),
});
type ProviderAnswer = Static<typeof ProviderAnswer>;

const INSTRUCTIONS =
  'You are an object detector for animals. Find every animal in the image. Answer only with JSON: ' +
  '{"animals":[{"label":"<COCO class name in lower case: cat, dog, horse, bird, sheep, cow, elephant, bear, zebra, giraffe>",' +
  '"confidence":<0..1>,"box":{"left":<0..1>,"top":<0..1>,"width":<0..1>,"height":<0..1>}}]} ' +
  'with the box as fractions of the image width and height, origin top-left. No animal: {"animals":[]}.';

/** Detection by the hosted model (one chat-completions call). */
export const hostedDetect = async (config: VisionProviderConfig, image: Buffer, minConfidence = DEFAULT_MIN_CONFIDENCE): Promise<Detection[]> => {
  let jpeg: Buffer;
  try {
    jpeg = await sharp(image, { animated: false }).rotate().resize(1024, 1024, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer();
  } catch (error) {
    throw new ImageDecodeError(`the image could not be decoded: ${(error as Error).message}`);
  }
  const body = {
    model: config.model,
    temperature: 0,
    response_format: { type: 'json_object' },
    messages: [
      { role: 'system', content: INSTRUCTIONS },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Detect the animals in this image.' },
          { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } },
        ],
      },
    ],
  };
  const response = await request(`${config.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
    body: JSON.stringify(body),
    headersTimeout: config.timeoutMs,
    bodyTimeout: config.timeoutMs,
  }).catch((error: Error) => {
    throw new VisionProviderError(`the vision provider could not be reached: ${error.message}`);
  });
  const text = await response.body.text();
  if (response.statusCode < 200 || response.statusCode >= 300) throw new VisionProviderError(`the vision provider answered ${response.statusCode}: ${text.slice(0, 200)}`);
  let content: unknown;
  try {
    content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
  } catch {
    throw new VisionProviderError('the vision provider answered something that is not JSON');
  }
  if (typeof content !== 'string') throw new VisionProviderError('the vision provider answered no message content');
  let answer: unknown;
  try {
    // Some models wrap JSON in a code fence.
    answer = JSON.parse(content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, ''));
  } catch {
    throw new VisionProviderError('the vision provider’s message is not JSON');
  }
  if (!Value.Check(ProviderAnswer, answer)) throw new VisionProviderError('the vision provider’s answer does not have the expected shape {"animals":[{label, confidence, box}]}');
  return (answer as ProviderAnswer).animals
    .map((animal) => {
      const left = animal.box.left;
      const top = animal.box.top;
      return {
        label: animal.label.toLowerCase(),
        confidence: animal.confidence,
        box: { left, top, width: Math.min(animal.box.width, 1 - left), height: Math.min(animal.box.height, 1 - top) },
      };
    })
    .filter((detection) => detection.confidence >= minConfidence && detection.box.width > 0 && detection.box.height > 0);
};

/** The built-in models with detection asked of the hosted model when one is configured; the built-in models unchanged otherwise. */
export const withVisionProvider = (builtIn: VisionModels, config: VisionProviderConfig | null): VisionModels => {
  if (!config) return builtIn;
  return {
    moderate: (image) => builtIn.moderate(image),
    classify: (image, topK) => builtIn.classify(image, topK),
    examine: (image, regions, options) => builtIn.examine(image, regions, options),
    detect: (image, options = {}) => hostedDetect(config, image, options.minConfidence),
    info: (): ModelInfo[] => [
      ...builtIn.info().filter((model) => model.task !== 'detection'),
      { task: 'detection', name: config.model, version: 'hosted', licence: 'the provider’s terms', source: new URL(config.url).origin },
    ],
    close: () => builtIn.close(),
  };
};

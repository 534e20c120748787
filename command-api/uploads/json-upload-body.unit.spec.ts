import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadBodySchema } from '../../contracts/image-uploads.ts';
import { registerErrorHandling } from '../../http/errors.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { registerJsonUploadBody } from './json-upload-body.ts';

/** An upload route as the image routes declare it: the streaming JSON parser, the upload body schema, a small body limit. */
let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  // the service's validator (http/app.ts), which knows the schemas' keywords
  app.setValidatorCompiler(validatorCompiler);
  registerErrorHandling(app);
  await app.register(async (instance) => {
    registerJsonUploadBody(instance);
    instance.post('/upload', { schema: { body: uploadBodySchema(false) }, bodyLimit: 64 * 1024 }, async (request) => ({
      fields: request.body,
      image: request.streamedImage?.toString('base64') ?? null,
    }));
  });
  // A route outside the plugin keeps Fastify's own JSON parser.
  app.post('/other', async (request) => ({ body: request.body, streamed: request.streamedImage ?? 'undecorated' }));
});
afterAll(() => app.close());

const post = (payload: string | Readable, headers: Record<string, string> = {}, url = '/upload') =>
  app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });

describe('JSON upload bodies, parsed as they stream in', () => {
  it("decodes the top-level image as it arrives and hands the route the other fields as parsed JSON", async () => {
    const bytes = randomBytes(30_000);
    const body = JSON.stringify({ sub_id: 'a "quoted" ü', type: 'base64', image: `data:image/png;base64,${bytes.toString('base64')}`, breed_ids: 'abys,beng', width: 120 });
    // Sent in small pieces, split inside multi-byte characters and escapes.
    const answer = await post(Readable.from(Buffer.from(body).reduce<Buffer[]>((chunks, _, i, all) => (i % 7 === 0 ? [...chunks, Buffer.from(all.subarray(i, i + 7))] : chunks), [])), {
      'content-length': String(Buffer.byteLength(body)),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ fields: { sub_id: 'a "quoted" ü', type: 'base64', image: 'base64', breed_ids: 'abys,beng', width: 120 }, image: bytes.toString('base64') });
  });

  it('keeps the last of a repeated image, and leaves an image key below the top level alone', async () => {
    const answer = await post('{"type":"base64","image":"QUJD","sub_id":"x","image":"REVG"}');
    expect(answer.json()).toEqual({ fields: { type: 'base64', image: 'base64', sub_id: 'x' }, image: Buffer.from('DEF').toString('base64') });
    // A later value that is not a string wins too: the streamed one is dropped, and the schema
    // answers for the number (the service's validator does not coerce it into a string).
    const overridden = await post('{"type":"base64","image":"QUJD","image":123}');
    expect(overridden.statusCode).toBe(400);
    expect(overridden.json()).toMatchObject({ code: 'validation_failed', message: ['body.image must be string'] });
    const nested = await post('{"type":"base64","sub_id":"x","width":{"image":"QUJD"}}');
    expect(nested.statusCode).toBe(400);
    expect(nested.json()).toMatchObject({ code: 'validation_failed' });
    expect(nested.body).toMatch(/width/);
  });

  it('answers as the schema does for an image that is not a non-blank string', async () => {
    for (const body of ['{"type":"base64","image":"  \\n "}', '{"type":"base64","image":null}']) {
      const answer = await post(body);
      expect(answer.statusCode, body).toBe(400);
      expect(answer.json(), body).toMatchObject({ code: 'validation_failed' });
      expect(answer.body, body).toMatch(/image/);
    }
  });

  it('refuses text in the image that is not base64 with the decoder’s answer', async () => {
    const answer = await post('{"type":"base64","image":"QUJD!!!"}');
    expect(answer.statusCode).toBe(400);
    expect(answer.json(), answer.body).toMatchObject({ code: 'validation_failed', message: ['body.image must be base64 or a base64 data URL'] });
  });

  it('answers malformed JSON, prototype poisoning and trailing text 400 invalid_json, as on every route', async () => {
    for (const body of ['{"type":"base64","image":"QUJD"', '{"type" "base64"}', '{"__proto__":{"x":1},"image":"QUJD"}', '{"constructor":{"prototype":{"x":1}}}', '{"image":"QUJD"} {}', '[1,']) {
      const answer = await post(body);
      expect(answer.statusCode, body).toBe(400);
      expect(answer.json(), body).toMatchObject({ code: 'invalid_json' });
    }
  });

  it('takes an empty body as no body, and answers a body over the limit 413 whether its length is declared or not', async () => {
    const empty = await post('');
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'validation_failed' });
    const large = JSON.stringify({ type: 'base64', image: randomBytes(60 * 1024).toString('base64') });
    const declared = await post(large);
    expect(declared.statusCode).toBe(413);
    expect(declared.json()).toMatchObject({ code: 'payload_too_large' });
    const chunked = await post(Readable.from([Buffer.from(large.slice(0, 40_000)), Buffer.from(large.slice(40_000))]));
    expect(chunked.statusCode).toBe(413);
    expect(chunked.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('leaves the other routes with Fastify’s parser', async () => {
    const answer = await post('{"image":"QUJD"}', {}, '/other');
    expect(answer.json()).toEqual({ body: { image: 'QUJD' }, streamed: 'undecorated' });
  });
});

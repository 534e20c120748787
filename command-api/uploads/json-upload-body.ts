import { StringDecoder } from 'node:string_decoder';
import { errorCodes, type FastifyInstance } from 'fastify';
import { jsonParser, type Token } from 'stream-json/core/parser.js';
import { stringer } from 'stream-json/core/stringer.js';
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import { base64Decoder } from './base64-decoder.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The `image` of a JSON upload body (type=base64), decoded while the body streamed in; null
     * when the body had none. The parsed body keeps a stand-in string in its place, so its schema
     * still checks that `image` is a non-blank string.
     */
    streamedImage: Buffer | null;
  }
}

/** The stand-ins for a streamed `image` in the parsed body: what the schema's `pattern: '\S'` decides on. */
const STAND_IN = { text: 'base64', blank: '' } as const;

type Done = (error: Error | null, body?: unknown) => void;

/**
 * JSON bodies of the image upload routes, parsed as they stream in (stream-json's tokenizer): the
 * top-level `image` string goes through the base64 decoder chunk by chunk, and everything else is
 * written back as JSON text and parsed by Fastify's own parser (prototype poisoning refused, as on
 * every route). A 50 MB photo is then held once, as its bytes, instead of as the body's text, the
 * parsed string and the bytes (≈ 185 MB at once, most of it on the V8 heap). Like every route, an
 * empty body is no body; the route's bodyLimit, a Content-Length that does not match and text
 * that is not JSON are answered as Fastify's own parser answers them.
 */
export const registerJsonUploadBody = (app: FastifyInstance): void => {
  const parseFields = app.getDefaultJsonParser('error', 'error');
  app.decorateRequest('streamedImage', null);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done: Done) => {
    const limit = request.routeOptions.bodyLimit;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());

    const text = new StringDecoder('utf8');
    // A flushable: `none` ends the text (its typing names only strings).
    const tokenize = jsonParser({ packKeys: true, streamKeys: false, packStrings: false, streamStrings: true, packNumbers: true, streamNumbers: false }) as (
      text: string | typeof none,
    ) => unknown;
    const write = stringer({ useKeyValues: true, useNumberValues: true });
    let fields = '';
    let received = 0;
    let depth = 0;
    /** The top-level `image` key, held until its value shows whether it is a string to stream. */
    let heldKey: Token | null = null;
    let image: ReturnType<typeof base64Decoder> | null = null;
    let streaming = false;
    let finished = false;

    const pass = (token: Token) => {
      const out = write(token);
      if (typeof out === 'string') fields += out;
    };
    const take = (token: Token) => {
      if (streaming) {
        if (token.name === 'stringChunk') image!.write(token.value);
        else if (token.name === 'endString') {
          streaming = false;
          pass({ name: 'stringChunk', value: image!.significant() ? STAND_IN.text : STAND_IN.blank });
          pass(token);
        }
        return;
      }
      if (heldKey) {
        const key = heldKey;
        heldKey = null;
        if (token.name === 'startString') {
          // A repeated key: the last one wins, as with JSON.parse.
          image = base64Decoder(Number.isFinite(declared) ? (declared * 3) / 4 : 0);
          streaming = true;
          pass(key);
          pass(token);
          return;
        }
        // Not a string: that value is the image the schema sees (and refuses), not an earlier one.
        image = null;
        pass(key);
      }
      if (token.name === 'keyValue' && depth === 1 && token.value === 'image') {
        heldKey = token;
        return;
      }
      if (token.name === 'startObject' || token.name === 'startArray') depth += 1;
      else if (token.name === 'endObject' || token.name === 'endArray') depth -= 1;
      pass(token);
    };
    const feed = (chunk: string | typeof none) => {
      const tokens = tokenize(chunk);
      if (isMany(tokens)) for (const token of getManyValues(tokens) as Token[]) take(token);
    };

    const stop = (error: Error | null, body?: unknown) => {
      if (finished) return;
      finished = true;
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
      done(error, body);
    };
    const failed = (error: unknown): Error => {
      if (!(error instanceof Error)) return new SyntaxError(String(error));
      // stream-json's own errors are the client's malformed JSON (400 invalid_json).
      return error.constructor === Error ? new SyntaxError(error.message) : error;
    };
    const onData = (chunk: Buffer | string) => {
      received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (received > limit) return stop(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      try {
        feed(typeof chunk === 'string' ? chunk : text.write(chunk));
      } catch (error) {
        stop(failed(error));
      }
    };
    const onEnd = (error?: Error) => {
      if (error) return stop(Object.assign(error, { statusCode: (error as { statusCode?: number }).statusCode ?? 400 }));
      if (Number.isFinite(declared) && received !== declared) return stop(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      if (received === 0) return stop(null, undefined);
      let bytes: Buffer | null = null;
      try {
        feed(text.end());
        feed(none);
        bytes = image?.end() ?? null;
      } catch (error) {
        return stop(failed(error));
      }
      parseFields(request, fields, (parseError, body) => {
        if (parseError) return stop(parseError);
        request.streamedImage = bytes;
        stop(null, body);
      });
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
};

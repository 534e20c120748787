import type { FastifyInstance, FastifyRequest } from 'fastify';
import etag from '@fastify/etag';
import Negotiator from 'negotiator';

/**
 * Conditional GETs for reference reads: every answer of the routes registered in the same plugin
 * context carries a weak ETag (a hash of the JSON bytes; weak, since compression changes the bytes
 * on the wire but not the representation) and an If-None-Match naming it is answered 304 with no
 * body (@fastify/etag). Call it inside a route plugin: the hook stays in that plugin's context.
 * A route that already set an ETag (bytes cached with their validator) keeps it.
 */
export const registerConditionalGet = async (app: FastifyInstance): Promise<void> => {
  await app.register(etag, { weak: true });
  // An error is not a representation to revalidate: no validator on it.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode >= 400) reply.removeHeader('etag');
    return payload;
  });
  // The OpenAPI document says so: ETag on the 200, and the 304 (no body).
  app.addHook('onRoute', (route) => {
    const schema = route.schema as { response?: Record<string, Record<string, unknown>>; hide?: boolean } | undefined;
    const ok = schema?.response?.['200'];
    if (!schema?.response || schema.hide || !ok || route.method !== 'GET') return;
    schema.response['200'] = { ...ok, headers: { ...(ok.headers as object | undefined), ETag: ETAG_HEADER } };
    schema.response['304'] = { type: 'null', description: 'Not Modified: the If-None-Match named the current ETag; no body' };
  });
};

const ETAG_HEADER = { type: 'string', description: 'weak validator of the representation; send it back in If-None-Match to get 304 while it holds' };

/** Whether If-None-Match names `tag` (weak comparison, lists and `*` understood). */
export const ifNoneMatchHits = (request: FastifyRequest, tag: string): boolean => {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  const opaque = (value: string) => value.trim().replace(/^W\//, '');
  const wanted = opaque(tag);
  return header.split(',').some((item) => item.trim() === '*' || opaque(item) === wanted);
};

/** Content codings a route may send pre-compressed bytes in, best first (as the compress plugin prefers). */
const ENCODINGS = ['br', 'gzip'] as const;

/** The content coding the client accepts best among br and gzip (undefined: send identity). */
export const acceptedEncoding = (request: FastifyRequest): (typeof ENCODINGS)[number] | undefined => {
  if (!request.headers['accept-encoding']) return undefined;
  const negotiator = new Negotiator(request) as Negotiator & { encodings(available: readonly string[], options: { preferred: readonly string[] }): string[] };
  return negotiator.encodings(ENCODINGS, { preferred: ENCODINGS })[0] as (typeof ENCODINGS)[number] | undefined;
};

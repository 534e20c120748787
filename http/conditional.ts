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
};

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

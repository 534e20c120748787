import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import { DEFERRED_SIZES, IMAGE_SIZES, MIME_OF } from '../../domain/images/image.ts';
import { DomainError } from '../../domain/errors.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';
import { binaryResponse } from '../../http/binary-response.ts';

const FileParams = Type.Object({
  file: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}\\.(jpg|png|gif|webp)$', description: '<url token>.<format>, as in the image `url`' }),
});
const FileQuery = Type.Object({
  size: Type.Optional(Type.Union(IMAGE_SIZES.map((size) => Type.Literal(size)), { description: 'thumb (150 px), small (320), med (640) or full (default)' })),
});

/** How long browsers and proxies may keep a file: short, so a deleted image stops being served soon. */
const CACHE_CONTROL = 'public, max-age=3600';

/**
 * The public image files, the `url` of an image: no API key (browsers load them in <img>), at an
 * address made of a random 24-byte token, not the image id, so ids never lead to files and files
 * cannot be enumerated. Served with their type, a strong ETag and Last-Modified (conditional
 * requests answer 304), nosniff and a sandboxing CSP.
 */
export const imageFileRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/images/files/:file',
      {
        schema: {
          tags: ['images'],
          summary: "An image's bytes (its public `url`); `size` picks a derived size",
          params: FileParams,
          querystring: FileQuery,
          response: {
            200: binaryResponse('the image, in its own type', Object.values(MIME_OF), {
              ETag: {
                type: 'string',
                description:
                  'strong validator of these bytes; send it back in If-None-Match to get 304. `small` and `thumb` are made just after the upload: until then the `med` bytes stand in, with the `med` ETag, `Cache-Control: no-store` and no Last-Modified',
              },
              'Last-Modified': { type: 'string', description: 'when the image was uploaded' },
            }),
            304: { type: 'null', description: 'not modified' },
            ...errors(404, 503),
          },
        },
        config: { auth: 'public' },
      },
      async (request, reply) => {
        if (!deps.images) throw new DomainError('not_ready', 'image files are not configured in this process');
        const [token, extension] = request.params.file.split('.');
        const doc = (await findFresh(deps, async () => (await deps.readStore.collection<ImageDoc>(Collections.images).find({ url_token: token }, { limit: 1 }))[0] ?? null));
        if (!doc || doc.format !== extension) throw new DomainError('not_found', 'image not found');
        const size = request.query.size ?? 'full';
        const etag = `"${doc.url_token}.${size}"`;
        const lastModified = new Date(doc.created_at).toUTCString();
        reply
          .header('etag', etag)
          .header('last-modified', lastModified)
          .header('cache-control', CACHE_CONTROL)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox");
        const ifNoneMatch = request.headers['if-none-match'];
        const ifModifiedSince = request.headers['if-modified-since'];
        const notModified =
          ifNoneMatch !== undefined
            ? ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*')
            : ifModifiedSince !== undefined && !Number.isNaN(Date.parse(ifModifiedSince)) && Date.parse(ifModifiedSince) >= Date.parse(lastModified);
        if (notModified) return reply.code(304).send();
        let blob = await deps.images.blobs.stream(doc.blob_keys[size]);
        if (!blob && (DEFERRED_SIZES as readonly string[]).includes(size)) {
          // `small` and `thumb` are made by the image-sizes processor just after the upload; until
          // then `med` stands in, with validators of its own and not stored, so nothing keeps it.
          blob = await deps.images.blobs.stream(doc.blob_keys.med);
          if (blob) reply.header('etag', `"${doc.url_token}.med"`).header('cache-control', 'no-store').removeHeader('last-modified');
        }
        if (!blob) throw new DomainError('not_found', 'image file not found');
        return reply.type(doc.mime_type).header('content-length', blob.size).send(blob.stream);
      },
    );
  };

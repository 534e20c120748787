import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { PetId } from '../../contracts/pets.ts';
import { Collections, type PetDoc, type PetMediaDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';
import { binaryResponse } from '../../http/binary-response.ts';

const Params = Type.Object({ petId: PetId, mediaId: PetId });

/**
 * GET /v1/pets/{petId}/images/{mediaId}/file: the bytes of one of your pet's media records (a
 * photo, a video or a generated portrait), with its type, nosniff and a sandboxing CSP. Private: the
 * owner's API key, feature `pets`.
 */
export const petMediaFileRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/pets/:petId/images/:mediaId/file',
      {
        schema: {
          tags: ['pets'],
          summary: "The bytes of one of your pet's photos, videos or portraits",
          params: Params,
          response: { 200: binaryResponse('the media file, in its own type (a photo or a video)', ['image/*', 'video/*']), ...errors(404, 503) },
        },
        config: { feature: 'pets' },
      },
      async (request, reply) => {
        if (!deps.images) throw new DomainError('not_ready', 'media files are not configured in this process');
        const { petId, mediaId } = request.params;
        const pet = await findFresh(deps, () => deps.readStore.collection<PetDoc>(Collections.pets).get(petId));
        if (!pet) throw new DomainError('not_found', 'pet not found');
        if (pet.account_id !== accountOf(request).id) throw new DomainError('forbidden', 'this pet belongs to another account');
        const media = await findFresh(deps, () => deps.readStore.collection<PetMediaDoc>(Collections.petMedia).get(mediaId));
        if (!media || media.pet_id !== petId) throw new DomainError('not_found', 'media record not found');
        const blob = await deps.images.blobs.stream(media.blob_key);
        if (!blob) throw new DomainError('not_found', 'media file not found');
        // Never rendered as a document: nosniff keeps the stated type, and the sandboxing CSP (as on
        // image files) stops any script should a browser open the file directly.
        return reply
          .type(media.mime_type)
          .header('content-length', blob.size)
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .send(blob.stream);
      },
    );
  };

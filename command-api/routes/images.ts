import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AnalysedImage, imageLinks, uploadBodySchema, UploadedImage } from '../../contracts/image-uploads.ts';
import { errors } from '../../contracts/common.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { BodyLimits } from '../../http/limits.ts';
import { holdUploadMemory } from '../../http/upload-budget.ts';
import { contextOf, recordWrite, type CommandApiDeps, type ImageCommandSettings } from '../deps.ts';
import { uploadImage } from '../handlers/images.ts';
import { readUploadBody } from '../handlers/upload-body.ts';
import { registerJsonUploadBody } from '../uploads/json-upload-body.ts';
import { awaitAnalysis } from '../handlers/await-analysis.ts';
import { imageAnswers } from '../handlers/image-answers.ts';

/**
 * Image uploads. The type comes from the bytes; the checks, sizes and quota are in
 * handlers/images.ts. `upload` answers at once (status to_be_reviewed, the pipeline runs in the
 * processors); `upload-sync` waits, bounded, for the analysis.
 */
export const imageCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const answers = imageAnswers(deps);
    // A JSON body's base64 `image` is decoded as it streams in, never held as text.
    registerJsonUploadBody(instance);
    // Each upload is buffered whole: it takes its share of the process's upload memory first.
    const holdMemory = holdUploadMemory(deps.uploadMemory);
    const settings = (): ImageCommandSettings => {
      if (!deps.images) throw new DomainError('not_ready', 'image uploads are not configured in this process');
      return deps.images;
    };
    const upload = async (request: FastifyRequest, sync: boolean) => {
      const images = settings();
      const account = accountOf(request);
      const input = await readUploadBody(request, sync);
      const result = await uploadImage({ eventStore: deps.eventStore, blobs: images.blobs, uploadQuota: images.uploadQuota, decodeMemory: deps.decodeMemory }, account.id, input, contextOf(request));
      await recordWrite(deps, account.id, result.position, 'images');
      return { data: result.data, images, accountId: account.id };
    };

    app.post(
      '/images/upload',
      {
        schema: {
          tags: ['images'],
          summary: 'Upload an image (multipart `file`, or type=base64 with `image`); processing continues in the background',
          body: uploadBodySchema(false),
          response: { 201: UploadedImage, ...errors(413, 415, 503) },
        },
        bodyLimit: BodyLimits.base64Photo,
        config: { feature: 'images', multipart: true },
        preParsing: holdMemory,
      },
      async (request, reply) => {
        const { data, accountId } = await upload(request, false);
        const image = await answers.uploaded(request, data, { accountId });
        return reply.code(201).send({ ...image, links: imageLinks(data.image_id) });
      },
    );

    app.post(
      '/images/upload-sync',
      {
        schema: {
          tags: ['images'],
          summary: 'Upload an image and wait (bounded) for its analysis; auto_crop (default true) makes one child image per animal found',
          body: uploadBodySchema(true),
          response: { 201: AnalysedImage, ...errors(413, 415, 503) },
        },
        bodyLimit: BodyLimits.base64Photo,
        config: { feature: 'images', multipart: true },
        preParsing: holdMemory,
      },
      async (request, reply) => {
        const { data, images, accountId } = await upload(request, true);
        const { labelled, validated, position } = await awaitAnalysis(deps.eventStore, data.image_id, images.syncTimeoutMs);
        const image = (await answers.current(request, data.image_id, position, { accountId })) ?? (await answers.uploaded(request, data, { accountId }));
        return reply.code(201).send({
          ...image,
          links: imageLinks(data.image_id),
          suggested_breed_ids: labelled.suggested_breed_ids,
          suggested_breeds: labelled.suggested_breeds ?? labelled.suggested_breed_ids.map((id) => ({ id, confidence: null })),
          duplicate_of: labelled.duplicate_of ?? null,
          orientation: labelled.orientation,
          labels: labelled.labels,
          moderation_labels: validated?.moderation_labels ?? [],
        });
      },
    );
  };

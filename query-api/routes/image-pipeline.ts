import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { analysisOf, ImageAnalysis, ImageStatusView } from '../../contracts/image-uploads.ts';
import { errors, ImageId } from '../../contracts/common.ts';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

const ImageIdParams = Type.Object({ id: ImageId });

/** The pipeline's views of one image: its processing status and its analysis (TheCatAPI's shape). */
export const imagePipelineQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const images = () => deps.readStore.collection<ImageDoc>(Collections.images);
    const imageFor = async (id: string, accountId: string, allowPublic: boolean): Promise<ImageDoc> => {
      const doc = await findFresh(deps, () => images().get(id));
      if (!doc) throw new DomainError('not_found', 'image not found');
      if (doc.account_id !== accountId && !(allowPublic && doc.public)) throw new DomainError('forbidden', 'this image belongs to another account');
      return doc;
    };

    app.get(
      '/images/:id/status',
      {
        schema: {
          tags: ['images'],
          summary: 'Processing status of one of your images: to_be_reviewed, clean, unsafe, labelled',
          params: ImageIdParams,
          response: { 200: ImageStatusView, ...errors(404) },
        },
        config: { feature: 'images' },
      },
      async (request) => {
        const doc = await imageFor(request.params.id, accountOf(request).id, false);
        return { id: doc.id, status: doc.status, updated_at: doc.updated_at };
      },
    );

    app.get(
      '/images/:id/analysis',
      {
        schema: {
          tags: ['images'],
          summary: 'Labels (with boxes) and moderation labels of an image of yours or a public one',
          params: ImageIdParams,
          response: { 200: ImageAnalysis, ...errors(404) },
        },
        config: { feature: 'image_analysis' },
      },
      async (request) => analysisOf(await imageFor(request.params.id, accountOf(request).id, true)),
    );
  };

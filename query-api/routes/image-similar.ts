import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { ImageIdParams } from '../../contracts/image-queries.ts';
import { SimilarImage, SimilarImagesQuery } from '../../contracts/image-similar.ts';
import { Collections, type ImageDoc, type ImageVectorDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { embeddingInt8 } from '../../domain/images/embedding.ts';
import { accountOf } from '../../http/auth.ts';
import { imageViews } from '../../http/image-views.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';
import { ServedLanguage } from '../language.ts';
import { similarIndex } from '../similar-index.ts';

/**
 * Similar images: the caller's own images and the public ones, nearest the asked image's embedding
 * (the vectors the breed-centroids projection keeps in image_vectors: the whole image's features),
 * from the resident index (query-api/similar-index.ts: exact cosine over every labelled image in
 * the caller's scope). The image itself is left out; so are images of another embedding model.
 * Every answer is checked again against the images read model (deleted ones are gone, visibility
 * as it is now), and the index is asked for more when some drop out. 404 for an unknown image,
 * 403 for another account's private one, 409 while the image has no embedding yet (not labelled).
 */
export const imageSimilarRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);
    const images = () => deps.readStore.collection<ImageDoc>(Collections.images);
    const vectors = () => deps.readStore.collection<ImageVectorDoc>(Collections.imageVectors);
    const index = similarIndex(deps.readStore);
    // built at start; a failure here is retried by the first query
    instance.addHook('onReady', async () => {
      index.sync().catch((error: unknown) => instance.log.warn({ err: error }, 'similar-images index not built at start'));
    });

    app.get(
      '/images/:id/similar',
      {
        schema: {
          tags: ['images'],
          summary: 'Images like this one among yours and the public ones, nearest first, with their similarity',
          params: ImageIdParams,
          querystring: SimilarImagesQuery,
          response: { 200: Type.Array(SimilarImage), ...errors(404, 409) },
        },
        config: { feature: 'images' as const },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const doc = await views.visible(await findFresh(deps, () => images().get(request.params.id)), account.id);
        const own = await findFresh(deps, async () => ((await vectors().get(doc.id))?.embedding ? vectors().get(doc.id) : null));
        if (!own?.embedding) throw new DomainError('conflict', `image ${doc.id} has no embedding yet (it is not labelled)`);
        const model = own.embedding.model;
        const { limit, species_id: species } = request.query;
        const { shown, found } = await index.visibleNearest(embeddingInt8(own.embedding), { accountId: account.id, model, species, exclude: doc.id }, limit);
        const language = ServedLanguage.of(request);
        const rendered = await views.render(request, shown.map((r) => found.get(r.id)!), { breeds: true, categories: false, colours: false, accountId: account.id, language });
        language.apply(reply);
        return shown.map((r, at) => ({ id: r.id, similarity: r.similarity, image: rendered[at] }));
      },
    );
  };

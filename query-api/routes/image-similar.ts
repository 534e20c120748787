import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { ImageIdParams } from '../../contracts/image-queries.ts';
import { SimilarImage, SimilarImagesQuery } from '../../contracts/image-similar.ts';
import { Collections, type ImageDoc, type ImageVectorDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { embeddingInt8 } from '../../domain/images/embedding.ts';
import { rankSimilar } from '../../domain/images/similar.ts';
import { accountOf } from '../../http/auth.ts';
import { imageViews } from '../../http/image-views.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';
import { ServedLanguage } from '../language.ts';

/**
 * At most this many candidates are ranked per query: the most recently labelled images visible to
 * the caller. Bounds the query's memory and time (brute force; see the performance notes).
 */
export const SIMILAR_MAX_CANDIDATES = 10_000;

/**
 * Similar images: the caller's own images and the public ones, nearest the asked image's embedding
 * (the vectors the breed-centroids projection keeps in image_vectors: the whole image's features),
 * by brute force (domain/images/similar.ts) over the SIMILAR_MAX_CANDIDATES most recently labelled. The image itself is left out; so are images of
 * another embedding model. 404 for an unknown image, 403 for another account's private one, 409
 * while the image has no embedding yet (not labelled).
 */
export const imageSimilarRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);
    const images = () => deps.readStore.collection<ImageDoc>(Collections.images);
    const vectors = () => deps.readStore.collection<ImageVectorDoc>(Collections.imageVectors);

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
        // two index-ordered reads (own, public) rather than one $or: each walks its compound index
        const recent = (scope: Record<string, unknown>) =>
          vectors().find({ ...scope, labelled_position: { $gte: 0 }, ...(species ? { species_id: species } : {}) }, { sort: { labelled_position: -1 }, limit: SIMILAR_MAX_CANDIDATES });
        const byId = new Map([...(await recent({ account_id: account.id })), ...(await recent({ public: true }))].map((c) => [c._id, c]));
        const candidates = [...byId.values()].sort((a, b) => (b.labelled_position ?? 0) - (a.labelled_position ?? 0)).slice(0, SIMILAR_MAX_CANDIDATES);
        const ranked = rankSimilar(
          embeddingInt8(own.embedding),
          candidates.filter((c) => c._id !== doc.id && c.embedding?.model === model).map((c) => ({ id: c._id, vector: embeddingInt8(c.embedding!) })),
          limit,
        );
        // shown only as the images read model has them: deleted ones are gone, and visibility is checked again
        const found = new Map(
          (await images().find({ _id: { $in: ranked.map((r) => r.id) } })).filter((image) => image.public || image.account_id === account.id).map((image) => [image.id, image]),
        );
        const shown = ranked.filter((r) => found.has(r.id));
        const language = ServedLanguage.of(request);
        const rendered = await views.render(request, shown.map((r) => found.get(r.id)!), { breeds: true, categories: false, colours: false, accountId: account.id, language });
        language.apply(reply);
        return shown.map((r, index) => ({ id: r.id, similarity: r.similarity, image: rendered[index] }));
      },
    );
  };

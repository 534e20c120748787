import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { ImageBreed, ImageSchema } from '../../contracts/image-resource.ts';
import { BreedLangQuery, ImageIdParams, ImageReadQuery, ListImagesQuery, SearchImagesQuery } from '../../contracts/image-queries.ts';
import { PublicRequest, PublicRequestParams, publicRequestResource } from '../../contracts/public-requests.ts';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA, setPaginationHeaders } from '../../http/paging.ts';
import { normaliseOrder } from '../../contracts/paging.ts';
import { BASIC_SEARCH_LIMIT } from '../../domain/accounts/features.ts';
import { drawRandomImages, drawsFromEntries } from '../random-images.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';
import { imageFilter, sortFieldOf } from '../image-filters.ts';
import { imageBreedOf, imageViews } from '../../http/image-views.ts';
import { ServedLanguage } from '../language.ts';

/**
 * Image reads. Search shows the public images (an approved public request) and the caller's own;
 * the list shows the caller's own with the owner's fields. An image by id is readable by its
 * owner and, once public, by everyone; another account's private image is 403.
 */
export const imageQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);
    const images = () => deps.readStore.collection<ImageDoc>(Collections.images);
    const feature = { feature: 'images' as const };

    app.get(
      '/images/search',
      {
        schema: {
          tags: ['images'],
          summary: 'Search public images and your own (paging style A: default limit 1, up to 100 with the premium feature, 25 without; random order, every matching image equally likely; pages only with order ASC or DESC)',
          querystring: SearchImagesQuery,
          response: {
            200: Type.Array(ImageSchema),
            302: Type.Null({ description: 'format=src: Location is the first image’s url' }),
            ...errors(404),
          },
        },
        config: { ...feature, paged: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const query = request.query;
        // sub_id names the caller's own end users: with it, only the caller's own images match (another
        // account's end-user ids are never shown, nor matched: no oracle for guessing them).
        const visible = query.sub_id !== undefined ? { account_id: account.id } : { $or: [{ public: true }, { account_id: account.id }] };
        const scope = query.account_id !== undefined ? { $and: [{ account_id: query.account_id }, visible] } : visible;
        // Pages of up to 100 with the premium feature, 25 without (a larger limit is served as 25: Pagination-Limit says so).
        const limit = account.features.has('premium') ? query.limit : Math.min(query.limit, BASIC_SEARCH_LIMIT);
        let docs: ImageDoc[];
        if ((normaliseOrder(query.order) ?? 'RANDOM') === 'RANDOM' && drawsFromEntries(query)) {
          // Random images drawn fairly from the whole catalogue without reading it (random-images.ts).
          const drawn = await drawRandomImages(deps.readStore, { accountId: account.id, query, limit, seenWrite: request.readPosition });
          setPaginationHeaders(reply, drawn.total, query.page, limit);
          docs = drawn.images;
        } else {
          const filter = await imageFilter(deps.readStore, scope, query);
          docs = await pageStyleA(reply, images(), filter, { ...query, limit }, { sortField: sortFieldOf(query.order_by), defaultOrder: 'RANDOM' });
        }
        const language = ServedLanguage.of(request);
        const rendered = await views.render(request, docs, {
          size: query.size,
          breeds: queryBoolean(query.include_breeds) ?? true,
          categories: queryBoolean(query.include_categories) ?? false,
          colours: queryBoolean(query.include_colours) ?? false,
          accountId: account.id,
          language,
        });
        language.apply(reply);
        if (query.format === 'src') {
          if (rendered.length === 0) throw new DomainError('not_found', 'no image matches');
          return reply.redirect(rendered[0].url, 302);
        }
        return rendered;
      },
    );

    app.get(
      '/images',
      {
        schema: {
          tags: ['images'],
          summary: 'Your images, full records with your vote and favourite (paging style A, newest first)',
          querystring: ListImagesQuery,
          response: { 200: Type.Array(ImageSchema), ...errors() },
        },
        config: { ...feature, paged: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const query = request.query;
        if (query.account_id !== undefined && query.account_id !== account.id) throw new DomainError('forbidden', 'account_id must be your own account');
        const filter = await imageFilter(deps.readStore, { account_id: account.id }, query);
        const docs = await pageStyleA(reply, images(), filter, query, { sortField: sortFieldOf(query.order_by), defaultOrder: 'DESC' });
        const language = ServedLanguage.of(request);
        const rendered = await views.render(request, docs, {
          size: query.size,
          breeds: true,
          categories: true,
          colours: true,
          accountId: account.id,
          language,
        });
        language.apply(reply);
        return rendered;
      },
    );

    app.get(
      '/images/:id',
      {
        schema: {
          tags: ['images'],
          summary: 'One image: yours, or a public one',
          params: ImageIdParams,
          querystring: ImageReadQuery,
          response: { 200: ImageSchema, ...errors(404) },
        },
        config: feature,
      },
      async (request, reply) => {
        const account = accountOf(request);
        const doc = await views.visible(await findFresh(deps, () => images().get(request.params.id)), account.id);
        const query = request.query;
        const language = ServedLanguage.of(request);
        const [image] = await views.render(request, [doc], {
          size: query.size,
          breeds: queryBoolean(query.include_breeds) ?? true,
          categories: queryBoolean(query.include_categories) ?? true,
          colours: queryBoolean(query.include_colours) ?? true,
          accountId: account.id,
          language,
        });
        language.apply(reply);
        return image;
      },
    );

    app.get(
      '/images/:id/breeds',
      {
        schema: {
          tags: ['images'],
          summary: 'The breeds tagged on an image',
          params: ImageIdParams,
          querystring: BreedLangQuery,
          response: { 200: Type.Array(ImageBreed), ...errors(404) },
        },
        config: feature,
      },
      async (request, reply) => {
        const account = accountOf(request);
        const doc = await views.visible(await findFresh(deps, () => images().get(request.params.id)), account.id);
        const language = ServedLanguage.of(request);
        const breeds = doc.breed_ids.length === 0 ? [] : await deps.readStore.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).find({ _id: { $in: doc.breed_ids } });
        const byId = new Map(breeds.map((breed) => [breed.id, breed]));
        const answer = doc.breed_ids.flatMap((id) => (byId.has(id) ? [imageBreedOf(byId.get(id)!, language)] : []));
        language.apply(reply);
        return answer;
      },
    );

    app.get(
      '/images/:imageId/public-requests',
      {
        schema: {
          tags: ['images'],
          summary: 'The request to make one of your images public',
          params: PublicRequestParams,
          response: { 200: PublicRequest, ...errors(404) },
        },
        config: { feature: 'public_requests' },
      },
      async (request) => {
        const account = accountOf(request);
        const doc = await findFresh(deps, () => images().get(request.params.imageId));
        if (!doc) throw new DomainError('not_found', 'image not found');
        if (doc.account_id !== account.id) throw new DomainError('forbidden', 'this image belongs to another account');
        const [image] = await views.render(request, [doc], { accountId: account.id });
        const record = publicRequestResource(doc, image);
        if (!record) throw new DomainError('not_found', 'this image has no request to make it public');
        return record;
      },
    );
  };

import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AttachImageQuery, Favourite, favouriteResource, ListFavouritesQuery } from '../../contracts/favourites.ts';
import { errors, NumericIdParams, queryBoolean } from '../../contracts/common.ts';
import { Collections, type FavouriteDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { imageViews } from '../../http/image-views.ts';
import { ServedLanguage } from '../language.ts';
import { imageFilters } from '../filters.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/**
 * A favourite carries its image as the Image resource when the image is known here and visible to
 * the account (its own or public); an unknown (or deleted, or private) image is {id, url: null}.
 * attach_image is accepted (TheCatAPI) and changes nothing: the image is always embedded in full.
 */

export const favouriteQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const favourites = () => deps.readStore.collection<FavouriteDoc>(Collections.favourites);
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);

    /** The favourites as answered, each with its image. */
    const answer = async (request: FastifyRequest, docs: FavouriteDoc[], accountId: string) => {
      const images = await views.embedded(request, docs.map((doc) => doc.image_id), { accountId, language: ServedLanguage.of(request) });
      return docs.map((doc) => favouriteResource({ ...doc, favourite_id: doc.id }, { deleted: doc.deleted, image: images.get(doc.image_id) }));
    };

    app.get(
      '/favourites',
      {
        schema: {
          tags: ['favourites'],
          summary: 'List your favourites (paging style A)',
          querystring: ListFavouritesQuery,
          response: { 200: Type.Array(Favourite), ...errors() },
        },
        config: { feature: 'favourites', paged: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const query = request.query;
        if (query.account_id !== undefined && query.account_id !== account.id) {
          throw new DomainError('forbidden', 'account_id must be your own account');
        }
        const filter = {
          account_id: account.id,
          ...(await imageFilters(deps.readStore, query)),
          ...(query.sub_id ? { sub_id: query.sub_id } : {}),
          ...(query.image_id ? { image_id: query.image_id } : {}),
          ...(queryBoolean(query.is_deleted) ? {} : { deleted: false }),
        };
        const docs = await pageStyleA(reply, favourites(), filter, query, { sortField: 'id', defaultOrder: 'ASC' });
        return answer(request, docs, account.id);
      },
    );

    app.get(
      '/favourites/:id',
      {
        schema: {
          tags: ['favourites'],
          summary: 'One of your favourites',
          params: NumericIdParams,
          querystring: AttachImageQuery,
          response: { 200: Favourite, ...errors(404) },
        },
        config: { feature: 'favourites' },
      },
      async (request) => {
        const account = accountOf(request);
        const doc = await findFresh(deps, () => favourites().get(String(request.params.id)));
        if (!doc) throw new DomainError('not_found', 'favourite not found');
        if (doc.account_id !== account.id) throw new DomainError('forbidden', 'this favourite belongs to another account');
        if (doc.deleted) throw new DomainError('not_found', 'favourite not found (deleted)');
        const [favourite] = await answer(request, [doc], account.id);
        return favourite;
      },
    );
  };

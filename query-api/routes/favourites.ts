import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AttachImageQuery, Favourite, favouriteResource, ListFavouritesQuery } from '../../contracts/favourites.ts';
import { errors, NumericIdParams, queryBoolean } from '../../contracts/common.ts';
import { Collections, type FavouriteDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { imageFilters } from '../filters.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/**
 * A favourite always carries image {id, url}. attach_image=true asks for the full image record;
 * until the image is known to the service that is the same {id, url: null}.
 */
export const toFavourite = (doc: FavouriteDoc, _attachImage: boolean) =>
  favouriteResource({ ...doc, favourite_id: doc.id }, { deleted: doc.deleted, imageUrl: doc.image_url });

export const favouriteQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const favourites = () => deps.readStore.collection<FavouriteDoc>(Collections.favourites);

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
          ...imageFilters(query),
          ...(query.sub_id ? { sub_id: query.sub_id } : {}),
          ...(query.image_id ? { image_id: query.image_id } : {}),
          ...(queryBoolean(query.is_deleted) ? {} : { deleted: false }),
        };
        const docs = await pageStyleA(reply, favourites(), filter, query, { sortField: 'id', defaultOrder: 'ASC' });
        const attach = queryBoolean(query.attach_image) ?? false;
        return docs.map((doc) => toFavourite(doc, attach));
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
        return toFavourite(doc, queryBoolean(request.query.attach_image) ?? false);
      },
    );
  };

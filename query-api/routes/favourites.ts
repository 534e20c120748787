import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AttachImageQuery, Favourite, favouriteResource, ListFavouritesQuery } from '../../contracts/favourites.ts';
import { errors, NumericIdParams, queryBoolean } from '../../contracts/common.ts';
import { Collections, type FavouriteDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { publicBaseUrl } from '../../http/public-url.ts';
import type { Image } from '../../contracts/image-resource.ts';
import { imageViews } from '../image-views.ts';
import { ServedLanguage } from '../language.ts';
import { imageFilters } from '../filters.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/**
 * A favourite always carries image {id, url}; the url once the image is known here and visible to
 * the account (its own or public), else null. attach_image=true embeds the full Image resource
 * for such images; an unknown (or deleted, or private) image stays {id, url: null}.
 */
export const toFavourite = (doc: FavouriteDoc, baseUrl: string, attached?: Image) => {
  const favourite = favouriteResource({ ...doc, favourite_id: doc.id }, { deleted: doc.deleted, imageUrl: doc.image_url && `${baseUrl}${doc.image_url}` });
  return attached ? { ...favourite, image: attached } : favourite;
};

export const favouriteQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const favourites = () => deps.readStore.collection<FavouriteDoc>(Collections.favourites);
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);

    /** The favourites as answered, with their images embedded when asked for. */
    const answer = async (request: FastifyRequest, docs: FavouriteDoc[], attach: boolean, accountId: string) => {
      const baseUrl = publicBaseUrl(request, deps.images?.publicBaseUrl);
      const attached = new Map<string, Image>();
      const known = [...new Set(docs.filter((doc) => doc.image_url !== null).map((doc) => doc.image_id))];
      if (attach && known.length > 0) {
        const images = (await views.images().find({ _id: { $in: known } })).filter((image) => image.public || image.account_id === accountId);
        const rendered = await views.render(request, images, {
          breeds: true,
          categories: false,
          colours: false,
          accountId,
          language: ServedLanguage.of(request),
        });
        for (const image of rendered) attached.set(image.id, image);
      }
      return docs.map((doc) => toFavourite(doc, baseUrl, attached.get(doc.image_id)));
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
        return answer(request, docs, queryBoolean(query.attach_image) ?? false, account.id);
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
        const [favourite] = await answer(request, [doc], queryBoolean(request.query.attach_image) ?? false, account.id);
        return favourite;
      },
    );
  };

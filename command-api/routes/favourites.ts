import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreatedFavourite, CreateFavouriteBody, favouriteResource } from '../../contracts/favourites.ts';
import { errors, NumericIdParams, Success } from '../../contracts/common.ts';
import { accountOf } from '../../http/auth.ts';
import { BodyLimits } from '../../http/limits.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { addFavourite, deleteFavourite } from '../handlers/favourites.ts';
import { imageAnswers } from '../handlers/image-answers.ts';

export const favouriteCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const answers = imageAnswers(deps);

    app.post(
      '/favourites',
      {
        schema: {
          tags: ['favourites'],
          summary: 'Save an image as a favourite (one per account, sub_id and image)',
          body: CreateFavouriteBody,
          response: { 201: CreatedFavourite, ...errors(409) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { feature: 'favourites' },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        const { favourite, position } = await addFavourite(
          deps.eventStore,
          {
            account_id: account.id,
            image_id: body.image_id,
            sub_id: body.sub_id ?? null,
            country_code: body.country_code?.toUpperCase() ?? null,
            client_ip_address: body.client_ip_address ?? body.ip_address ?? null,
          },
          contextOf(request),
        );
        // Side by side, as a vote's (routes/votes.ts): the image does not wait for this favourite.
        const [, image] = await Promise.all([
          recordWrite(deps, account.id, position, 'favourites'),
          answers.embedded(request, favourite.image_id, { accountId: account.id }),
        ]);
        return reply.code(201).send({ message: 'SUCCESS' as const, ...favouriteResource(favourite, { image }) });
      },
    );

    app.delete(
      '/favourites/:id',
      {
        schema: {
          tags: ['favourites'],
          summary: 'Delete one of your favourites (soft: listed again with is_deleted=true)',
          params: NumericIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'favourites' },
      },
      async (request) => {
        const account = accountOf(request);
        const { position } = await deleteFavourite(deps.eventStore, request.params.id, account.id, contextOf(request));
        await recordWrite(deps, account.id, position, 'favourites');
        return { message: 'SUCCESS' as const };
      },
    );
  };

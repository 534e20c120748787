import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { PetIdParams, PetMedia, petMediaResource } from '../../contracts/pets.ts';
import { PortraitRequest } from '../../contracts/portraits.ts';
import { EstimateQuery } from '../../contracts/pet-analyses.ts';
import { accountOf } from '../../http/auth.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { requestPortrait } from '../handlers/portrait.ts';

/**
 * POST /v1/pets/{petId}/portrait (feature `portraits`): a generated portrait, stored as a media
 * record of the pet (kind `portrait`, `portrait_style_id`). The portrait processor draws it; the
 * route waits for it like the other analyses (503 analysis_unavailable if it does not come in
 * time, 422 analysis_not_possible with the reason when it cannot be drawn).
 */
export const petPortraitCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/pets/:petId/portrait',
      {
        schema: {
          tags: ['pets'],
          summary: 'Generate a portrait of your pet in a style (the pet cut out of one of its photos onto a drawn background)',
          params: PetIdParams,
          querystring: EstimateQuery,
          body: PortraitRequest,
          response: { 201: PetMedia, ...errors(404, 422, 503) },
        },
        config: { feature: 'portraits' },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const { media, position } = await requestPortrait(deps.eventStore, request.params.petId, account.id, request.body, contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        reply.code(201);
        return petMediaResource(media, request.params.petId);
      },
    );
  };

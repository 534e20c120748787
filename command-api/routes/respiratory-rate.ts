import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { PetIdParams } from '../../contracts/pets.ts';
import { RespiratoryRateResult } from '../../contracts/respiratory-rate.ts';
import { accountOf } from '../../http/auth.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { requestRespiratoryRate } from '../handlers/respiratory-rate.ts';

/**
 * POST /v1/pets/{petId}/respiratory-rate (early access, feature `respiratory_rate`): answers 202
 * with a pending result; the processor reads the latest video and the result follows by GET
 * /v1/pets/{petId}/respiratory-rate/{resultId} and the webhook pet.respiratory_rate.completed.
 */
export const respiratoryRateCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/pets/:petId/respiratory-rate',
      {
        schema: {
          tags: ['pets'],
          summary: "Read the resting respiratory rate from the pet's latest video (early access; answers pending, the result follows)",
          params: PetIdParams,
          response: { 202: RespiratoryRateResult, ...errors(404) },
        },
        config: { feature: 'respiratory_rate' },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const { request: requested, position } = await requestRespiratoryRate(deps.eventStore, request.params.petId, account.id, contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        reply.code(202);
        return {
          id: requested.result_id,
          pet_id: requested.pet_id,
          status: 'pending' as const,
          breaths_per_minute: null,
          breed_baseline: null,
          within_baseline: null,
          video_id: requested.video_id,
          reasons: null,
          failure_reason: null,
          requested_at: requested.requested_at,
          generated_at: null,
        };
      },
    );
  };

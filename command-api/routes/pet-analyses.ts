import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { AgeEstimateResult, EstimateBody, EstimateQuery, WeightEstimateResult } from '../../contracts/pet-analyses.ts';
import { PetIdParams } from '../../contracts/pets.ts';
import { accountOf } from '../../http/auth.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { requestAnalysis } from '../handlers/pet-analyses.ts';

/**
 * Analyses of a pet that answer with their result: the request is appended, a processor computes
 * it, and the route waits (bounded) for the result event — 503 analysis_unavailable if none comes
 * in time, 422 analysis_not_possible when the evidence does not allow one, 400 pet_has_no_photos.
 */
export const petAnalysisCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/pets/:petId/weight-estimate',
      {
        schema: {
          tags: ['pets'],
          summary: 'Estimate the pet’s weight and size class (breed range, growth curve, body condition)',
          params: PetIdParams,
          querystring: EstimateQuery,
          body: EstimateBody,
          response: { 200: WeightEstimateResult, ...errors(404, 422, 503) },
        },
        config: { feature: 'weight_estimate', optionalBody: true },
      },
      async (request) => {
        const account = accountOf(request);
        const { outcome, position } = await requestAnalysis(deps.eventStore, request.params.petId, account.id, 'weight_estimate', contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        if (outcome.kind !== 'weight_estimate') throw new Error('unexpected analysis kind');
        return outcome.result;
      },
    );

    app.post(
      '/pets/:petId/age-estimate',
      {
        schema: {
          tags: ['pets'],
          summary: 'Estimate the pet’s age and life stage (exact from its record, else from photo ages)',
          params: PetIdParams,
          querystring: EstimateQuery,
          body: EstimateBody,
          response: { 200: AgeEstimateResult, ...errors(404, 422, 503) },
        },
        config: { feature: 'age_estimate', optionalBody: true },
      },
      async (request) => {
        const account = accountOf(request);
        const { outcome, position } = await requestAnalysis(deps.eventStore, request.params.petId, account.id, 'age_estimate', contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        if (outcome.kind !== 'age_estimate') throw new Error('unexpected analysis kind');
        return outcome.result;
      },
    );
  };

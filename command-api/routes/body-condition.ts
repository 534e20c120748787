import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import {
  BcsDecisionBody,
  BcsReview,
  BcsReviewParams,
  BcsReviewRequestBody,
  BodyConditionBody,
  BodyConditionQuery,
  BodyConditionResult,
  MuscleConditionResult,
} from '../../contracts/body-condition.ts';
import { EstimateBody, EstimateQuery, estimateInputOf } from '../../contracts/pet-analyses.ts';
import { PetIdParams } from '../../contracts/pets.ts';
import { accountOf } from '../../http/auth.ts';
import { BodyLimits } from '../../http/limits.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { requestAnalysis } from '../handlers/pet-analyses.ts';
import { awaitBcsReview, decideBcsReview } from '../handlers/bcs-reviews.ts';

/**
 * Body condition score (WSAVA 1–9), its vet review, and muscle condition. The analyses follow the
 * weight/age estimate pattern (request appended, processor computes, the route waits bounded for
 * the result); an explicit review request computes the score and opens its review; the vet's
 * decision is an admin operation on the review's own stream.
 */
export const bodyConditionCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/pets/:petId/body-condition-score',
      {
        schema: {
          tags: ['pets'],
          summary: 'Body condition score (WSAVA 1–9) from the top/back and side photos’ silhouettes; low confidence goes to vet review',
          params: PetIdParams,
          querystring: BodyConditionQuery,
          body: BodyConditionBody,
          response: { 200: BodyConditionResult, ...errors(404, 422, 503) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { feature: 'body_condition', optionalBody: true },
      },
      async (request) => {
        const account = accountOf(request);
        const { outcome, position } = await requestAnalysis(deps.eventStore, request.params.petId, account.id, 'body_condition', contextOf(request), undefined, {
          weight_kg: estimateInputOf(request.query, request.body).weight_kg ?? null,
        });
        await recordWrite(deps, account.id, position, 'pets');
        if (outcome.kind !== 'body_condition') throw new Error('unexpected analysis kind');
        return outcome.result;
      },
    );

    app.post(
      '/pets/:petId/body-condition-score/reviews',
      {
        schema: {
          tags: ['pets'],
          summary: 'Score the pet’s body condition now and send that score to a vet for review (pet.bcs.review_requested)',
          params: PetIdParams,
          querystring: BodyConditionQuery,
          body: BcsReviewRequestBody,
          response: { 201: BcsReview, ...errors(404, 422, 503) },
        },
        bodyLimit: BodyLimits.smallJson,
        // Every field is optional, and so is the body: no body is an empty request.
        config: { feature: 'body_condition', optionalBody: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        const { analysisId } = await requestAnalysis(deps.eventStore, request.params.petId, account.id, 'body_condition', contextOf(request), undefined, {
          weight_kg: estimateInputOf(request.query, body).weight_kg ?? null,
          review: { note: body.note ?? null, external_owner_id: body.external_owner_id ?? null },
        });
        const { review, position } = await awaitBcsReview(deps.eventStore, analysisId);
        await recordWrite(deps, account.id, position, 'pets');
        return reply.code(201).send(review);
      },
    );

    app.post(
      '/body-condition-score/reviews/:reviewId/decision',
      {
        schema: {
          tags: ['admin'],
          summary: 'A vet completes (optionally correcting the score) or rejects a body condition score review (admin; pet.bcs.reviewed)',
          params: BcsReviewParams,
          body: BcsDecisionBody,
          response: { 200: BcsReview, ...errors(404, 409) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { auth: 'admin' },
      },
      async (request) => {
        const { review, accountId, position } = await decideBcsReview(deps.eventStore, request.params.reviewId, request.body, contextOf(request));
        await recordWrite(deps, accountId, position, 'pets');
        return review;
      },
    );

    app.post(
      '/pets/:petId/muscle-condition',
      {
        schema: {
          tags: ['pets'],
          summary: 'Muscle condition from the top-view silhouette (hindquarters) and age/BCS risk factors',
          params: PetIdParams,
          querystring: EstimateQuery,
          body: EstimateBody,
          response: { 200: MuscleConditionResult, ...errors(404, 422, 503) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { feature: 'muscle_condition', optionalBody: true },
      },
      async (request) => {
        const account = accountOf(request);
        const { outcome, position } = await requestAnalysis(deps.eventStore, request.params.petId, account.id, 'muscle_condition', contextOf(request));
        await recordWrite(deps, account.id, position, 'pets');
        if (outcome.kind !== 'muscle_condition') throw new Error('unexpected analysis kind');
        return outcome.result;
      },
    );
  };


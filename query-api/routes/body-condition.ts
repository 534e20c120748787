import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { BcsReview, BcsReviewParams, bcsReviewResource, type BcsReviewDoc } from '../../contracts/body-condition.ts';
import { PetIdParams } from '../../contracts/pets.ts';
import { Collections, type PetDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

const ReviewStatusQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('rejected')])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  page: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

/**
 * Vet reviews of body condition scores: one review (the pet's owner), a pet's reviews (newest
 * first), and the vets' work list (admin key; oldest first, `status=pending` for what is waiting).
 */
export const bodyConditionQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const reviews = () => deps.readStore.collection<BcsReviewDoc>(Collections.bcsReviews);
    const ownedPet = async (petId: string, accountId: string) => {
      const pet = await findFresh(deps, () => deps.readStore.collection<PetDoc>(Collections.pets).get(petId));
      if (!pet) throw new DomainError('not_found', 'pet not found');
      if (pet.account_id !== accountId) throw new DomainError('forbidden', 'this pet belongs to another account');
      return pet;
    };

    app.get(
      '/body-condition-score/reviews/:reviewId',
      {
        schema: { tags: ['pets'], summary: 'A vet review of a body condition score', params: BcsReviewParams, response: { 200: BcsReview, ...errors(404) } },
        config: { feature: 'body_condition' },
      },
      async (request) => {
        const doc = await findFresh(deps, () => reviews().get(request.params.reviewId));
        if (!doc) throw new DomainError('not_found', 'review not found');
        if (doc.account_id !== accountOf(request).id) throw new DomainError('forbidden', 'this review belongs to another account');
        // A removed pet's reviews are gone with it.
        await ownedPet(doc.pet_id, doc.account_id);
        return bcsReviewResource(doc);
      },
    );

    app.get(
      '/pets/:petId/body-condition-score/reviews',
      {
        schema: { tags: ['pets'], summary: 'The vet reviews of a pet’s body condition scores, newest first', params: PetIdParams, response: { 200: Type.Array(BcsReview), ...errors(404) } },
        config: { feature: 'body_condition' },
      },
      async (request) => {
        await ownedPet(request.params.petId, accountOf(request).id);
        const docs = await reviews().find({ pet_id: request.params.petId }, { sort: { requested_at: -1 } });
        return docs.map(bcsReviewResource);
      },
    );

    app.get(
      '/admin/body-condition-score/reviews',
      {
        schema: { tags: ['admin'], summary: 'Body condition score reviews for the vets (admin), oldest first', querystring: ReviewStatusQuery, response: { 200: Type.Array(BcsReview), ...errors() } },
        config: { auth: 'admin' },
      },
      async (request) => {
        const { status, limit = 100, page = 0 } = request.query;
        const docs = await reviews().find(status ? { status } : {}, { sort: { requested_at: 1 }, skip: page * limit, limit });
        return docs.map(bcsReviewResource);
      },
    );
  };

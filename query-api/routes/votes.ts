import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ListVotesQuery, Vote, voteFromCast } from '../../contracts/votes.ts';
import { errors, NumericIdParams } from '../../contracts/common.ts';
import { Collections, type VoteDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { imageViews } from '../../http/image-views.ts';
import type { FastifyRequest } from 'fastify';
import { imageFilters } from '../filters.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';


export const voteQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const votes = () => deps.readStore.collection<VoteDoc>(Collections.votes);
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);

    /** The votes as answered, each with its image (the Image when known here and visible to the account). */
    const answer = async (request: FastifyRequest, docs: VoteDoc[], accountId: string) => {
      const images = await views.embedded(request, docs.map((doc) => doc.image_id), { accountId });
      return docs.map((doc) => voteFromCast({ ...doc, vote_id: doc.id }, images.get(doc.image_id)));
    };

    app.get(
      '/votes',
      {
        schema: {
          tags: ['votes'],
          summary: 'List your votes (paging style A)',
          querystring: ListVotesQuery,
          response: { 200: Type.Array(Vote), ...errors() },
        },
        config: { feature: 'votes', paged: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const query = request.query;
        const filter = { account_id: account.id, ...(await imageFilters(deps.readStore, query)), ...(query.sub_id ? { sub_id: query.sub_id } : {}) };
        const docs = await pageStyleA(reply, votes(), filter, query, { sortField: 'id', defaultOrder: 'ASC' });
        return answer(request, docs, account.id);
      },
    );

    app.get(
      '/votes/:id',
      {
        schema: {
          tags: ['votes'],
          summary: 'One of your votes',
          params: NumericIdParams,
          response: { 200: Vote, ...errors(404) },
        },
        config: { feature: 'votes' },
      },
      async (request) => {
        const account = accountOf(request);
        const doc = await findFresh(deps, () => votes().get(String(request.params.id)));
        if (!doc) throw new DomainError('not_found', 'vote not found');
        if (doc.account_id !== account.id) throw new DomainError('forbidden', 'this vote belongs to another account');
        const [vote] = await answer(request, [doc], account.id);
        return vote;
      },
    );
  };

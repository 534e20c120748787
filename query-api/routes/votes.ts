import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ListVotesQuery, Vote, voteFromCast } from '../../contracts/votes.ts';
import { errors, NumericIdParams } from '../../contracts/common.ts';
import { Collections, type VoteDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { pageStyleA } from '../../http/paging.ts';
import { publicBaseUrl } from '../../http/public-url.ts';
import { imageFilters } from '../filters.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/** `image.url` is absolute: the image's file path (set by the projection once the image is known) on `baseUrl`. */
export const toVote = (doc: VoteDoc, baseUrl: string) => voteFromCast({ ...doc, vote_id: doc.id }, doc.image_url && `${baseUrl}${doc.image_url}`);

export const voteQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const votes = () => deps.readStore.collection<VoteDoc>(Collections.votes);

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
        const baseUrl = publicBaseUrl(request, deps.images?.publicBaseUrl);
        return docs.map((doc) => toVote(doc, baseUrl));
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
        return toVote(doc, publicBaseUrl(request, deps.images?.publicBaseUrl));
      },
    );
  };

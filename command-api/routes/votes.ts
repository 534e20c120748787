import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreatedVote, CreateVoteBody, voteFromCast } from '../../contracts/votes.ts';
import { errors, NumericIdParams, Success } from '../../contracts/common.ts';
import { voteDecider } from '../../domain/votes/decide.ts';
import { voteStream, type VoteCast } from '../../domain/votes/vote.ts';
import { handleCommand } from '../../infrastructure/event-store/command-handler.ts';
import { accountOf } from '../../http/auth.ts';
import { BodyLimits } from '../../http/limits.ts';
import { contextOf, recordWrite, type CommandApiDeps } from '../deps.ts';
import { withFreshNumericId } from '../handlers/fresh-id.ts';
import { imageAnswers } from '../handlers/image-answers.ts';

/**
 * Votes are accepted for any well-formed image id: the service does not (yet) hold a catalogue
 * every voted image must come from, and TheCatAPI clients vote on ids they got elsewhere.
 * The vote's `image.url` stays null until an image with that id is known here.
 */
export const voteCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const answers = imageAnswers(deps);

    app.post(
      '/votes',
      {
        schema: {
          tags: ['votes'],
          summary: 'Vote an image up (1) or down (-1)',
          body: CreateVoteBody,
          response: { 201: CreatedVote, ...errors() },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { feature: 'votes' },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const body = request.body;
        const result = await withFreshNumericId((voteId) =>
          handleCommand(
            deps.eventStore,
            voteStream(voteId),
            voteDecider,
            {
              type: 'CastVote',
              vote_id: voteId,
              account_id: account.id,
              image_id: body.image_id,
              sub_id: body.sub_id ?? null,
              value: body.value,
              country_code: body.country_code?.toUpperCase() ?? null,
              ip_address: body.ip_address ?? null,
              now: new Date().toISOString(),
            },
            contextOf(request),
            { newStream: true },
          ),
        );
        // The record and the image the answer embeds side by side: neither reads what the other
        // writes (the image waits for the caller's image writes, not for this vote), and the answer
        // goes once both are done.
        const [, image] = await Promise.all([
          recordWrite(deps, account.id, result.position, 'votes'),
          answers.embedded(request, body.image_id, { accountId: account.id }),
        ]);
        return reply.code(201).send({ message: 'SUCCESS' as const, ...voteFromCast((result.events[0] as VoteCast).data, image) });
      },
    );

    const deleteVote = async (request: FastifyRequest<{ Params: { id: number } }>) => {
      const account = accountOf(request);
      const result = await handleCommand(
        deps.eventStore,
        voteStream(request.params.id),
        voteDecider,
        { type: 'DeleteVote', account_id: account.id, now: new Date().toISOString() },
        contextOf(request),
      );
      await recordWrite(deps, account.id, result.position, 'votes');
      return { message: 'SUCCESS' as const };
    };

    app.delete(
      '/votes/:id',
      {
        schema: {
          tags: ['votes'],
          summary: 'Delete one of your votes',
          params: NumericIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'votes' },
      },
      deleteVote,
    );

    // TheCatAPI's OpenAPI description and Postman collection delete a vote at the singular path.
    app.delete(
      '/vote/:id',
      {
        schema: {
          tags: ['votes'],
          summary: 'Delete one of your votes (TheCatAPI\'s singular path; use DELETE /v1/votes/{id})',
          deprecated: true,
          params: NumericIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'votes' },
      },
      deleteVote,
    );
  };

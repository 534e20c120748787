import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors, Success } from '../../contracts/common.ts';
import { ImageBreedParams, ImageIdParams, TagBreedBody } from '../../contracts/image-queries.ts';
import {
  CreatePublicRequestBody,
  PublicRequest,
  PublicRequestDecisionBody,
  PublicRequestParams,
} from '../../contracts/public-requests.ts';
import { unknownImage, type EmbeddedImage } from '../../contracts/image-resource.ts';
import { imageBreedsDecider } from '../../domain/images/breeds.ts';
import { deleteImageDecider } from '../../domain/images/delete.ts';
import { imageStream, type ImageEvent, type ImagePublicRequestDecided, type ImagePublicRequested, type ImageState, type ImageUploaded } from '../../domain/images/image.ts';
import { publicRequestDecider } from '../../domain/images/public-requests.ts';
import type { Decider } from '../../domain/decider.ts';
import { handleCommand } from '../../infrastructure/event-store/command-handler.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { accountOf } from '../../http/auth.ts';
import { BodyLimits } from '../../http/limits.ts';
import { contextOf, recordImageWrite, type CommandApiDeps } from '../deps.ts';
import { breedExists } from '../handlers/image-records.ts';
import { imageAnswers } from '../handlers/image-answers.ts';

export const TaggedBreed = Type.Object({
  message: Type.Literal('SUCCESS'),
  id: Type.String({ description: 'the breed id' }),
  image_id: Type.String(),
  breed_id: Type.String(),
});

/**
 * Writes on an existing image: delete it, tag and untag breeds, ask for it to be public, and the
 * admin's decision on that request. Each decides on the image's stream (its owner only: another
 * account's image is 403, a missing or deleted one 404) and answers from the events it appended.
 */
export const imageRecordCommandRoutes =
  (deps: CommandApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const now = () => new Date().toISOString();

    /** A command of the caller's on one image's stream, and their write position recorded (read-your-writes). */
    const decideOnImage = async <Command>(request: FastifyRequest, imageId: string, decider: Decider<ImageState, Command, ImageEvent>, command: Command) => {
      const result = await handleCommand(deps.eventStore, imageStream(imageId), decider, command, contextOf(request));
      await recordImageWrite(deps, accountOf(request).id, result.position, result.state);
      return result;
    };

    const answers = imageAnswers(deps);
    /**
     * The image a public request is about, as it stands after the write at `position` (as its owner,
     * or an admin, sees it); its id alone if it was deleted in between.
     */
    const imageAfter = async (request: FastifyRequest, imageId: string, position: bigint | null): Promise<EmbeddedImage> =>
      (await answers.current(request, imageId, position, { accountId: request.account?.id ?? null, admin: request.isAdmin === true })) ?? unknownImage(imageId);

    app.delete(
      '/images/:id',
      {
        schema: {
          tags: ['images'],
          summary: 'Delete one of your images (its files go too; votes and favourites on it keep their ids)',
          params: ImageIdParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'images' },
      },
      async (request) => {
        const account = accountOf(request);
        await decideOnImage(request, request.params.id, deleteImageDecider, { type: 'DeleteImage', account_id: account.id, now: now() });
        return { message: 'SUCCESS' as const };
      },
    );

    app.post(
      '/images/:id/breeds',
      {
        schema: {
          tags: ['images'],
          summary: 'Tag a breed on one of your images',
          params: ImageIdParams,
          body: TagBreedBody,
          response: { 201: TaggedBreed, ...errors(404, 409) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { feature: 'images' },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const breedId = request.body.breed_id;
        const exists = await breedExists(deps.eventStore, breedId);
        await decideOnImage(request, request.params.id, imageBreedsDecider, { type: 'TagBreed', account_id: account.id, breed_id: breedId, breed_exists: exists, now: now() });
        return reply.code(201).send({ message: 'SUCCESS' as const, id: breedId, image_id: request.params.id, breed_id: breedId });
      },
    );

    app.delete(
      '/images/:id/breeds/:breedId',
      {
        schema: {
          tags: ['images'],
          summary: 'Remove a breed tagged on one of your images',
          params: ImageBreedParams,
          response: { 200: Success, ...errors(404) },
        },
        config: { feature: 'images' },
      },
      async (request) => {
        const account = accountOf(request);
        await decideOnImage(request, request.params.id, imageBreedsDecider, { type: 'UntagBreed', account_id: account.id, breed_id: request.params.breedId, now: now() });
        return { message: 'SUCCESS' as const };
      },
    );

    app.post(
      '/images/:imageId/public-requests',
      {
        schema: {
          tags: ['images'],
          summary: 'Ask for one of your images to be made public (one pending request at a time)',
          params: PublicRequestParams,
          body: CreatePublicRequestBody,
          response: { 201: Type.Composite([Type.Object({ message: Type.Literal('SUCCESS') }), PublicRequest]), ...errors(404, 409) },
        },
        bodyLimit: BodyLimits.smallJson,
        // The message is optional, and so is the body: no body is an empty request.
        config: { feature: 'public_requests', optionalBody: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const { imageId } = request.params;
        const result = await decideOnImage(request, imageId, publicRequestDecider, { type: 'RequestPublic', account_id: account.id, request_id: randomId(), request_message: request.body.request_message ?? null, now: now() });
        const event = (result.events as ImageEvent[])[0] as ImagePublicRequested;
        return reply.code(201).send({
          message: 'SUCCESS' as const,
          id: event.data.request_id,
          image_id: imageId,
          account_id: account.id,
          status: 'pending' as const,
          request_message: event.data.request_message,
          admin_message: null,
          actioned_by_email: null,
          actioned_at: null,
          created_at: event.data.created_at,
          updated_at: event.data.created_at,
          image: await imageAfter(request, imageId, result.position),
        });
      },
    );

    app.post(
      '/images/:imageId/public-requests/decision',
      {
        schema: {
          tags: ['admin'],
          summary: 'Approve or reject the pending request to make an image public (admin); approved images join everyone’s search',
          params: PublicRequestParams,
          body: PublicRequestDecisionBody,
          response: { 200: PublicRequest, ...errors(404, 409) },
        },
        bodyLimit: BodyLimits.smallJson,
        config: { auth: 'admin' },
      },
      async (request) => {
        const { imageId } = request.params;
        const body = request.body;
        const result = await handleCommand(
          deps.eventStore,
          imageStream(imageId),
          publicRequestDecider,
          {
            type: 'DecidePublicRequest',
            status: body.status,
            admin_message: body.admin_message ?? null,
            actioned_by_email: body.actioned_by_email ?? null,
            now: now(),
          },
          contextOf(request),
        );
        const decided = (result.events as ImageEvent[])[0] as ImagePublicRequestDecided;
        const requested = (await deps.eventStore.readStream(imageStream(imageId)))
          .filter((event) => event.type === 'ImagePublicRequested')
          .map((event) => event.data as ImagePublicRequested['data'])
          .find((data) => data.request_id === decided.data.request_id);
        // The owner's next read must see the decision (and an approved image in search).
        await recordImageWrite(deps, decided.data.account_id, result.position, result.state);
        return {
          id: decided.data.request_id,
          image_id: imageId,
          account_id: decided.data.account_id,
          status: decided.data.status,
          request_message: requested?.request_message ?? null,
          admin_message: decided.data.admin_message,
          actioned_by_email: decided.data.actioned_by_email,
          actioned_at: decided.data.actioned_at,
          created_at: requested?.created_at ?? decided.data.actioned_at,
          updated_at: decided.data.actioned_at,
          image: await imageAfter(request, imageId, result.position),
        };
      },
    );
  };

import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../../contracts/common.ts';
import { ModerationItem, ModerationQuery, type ModerationQueue } from '../../../contracts/moderation.ts';
import { Collections, type ImageDoc } from '../../../contracts/read-models.ts';
import { imageViews } from '../../../http/image-views.ts';
import { setPaginationHeaders } from '../../../http/paging.ts';
import type { Filter } from '../../../infrastructure/read-store/port.ts';
import type { QueryApiDeps } from '../../deps.ts';

/** Which images each queue holds (each served by an images index on its field, then created_at). */
const QUEUE_FILTERS: Record<ModerationQueue, Filter> = {
  pending: { 'public_request.status': 'pending' },
  flagged: { unsafe: true },
  held: { status: 'to_be_reviewed' },
};

/**
 * The moderation queues for the operations console (admin key), oldest first: each image as its
 * owner sees it (the console shows the requester's message and the attribution), with its labels
 * and detection boxes, its safety verdict and its request to be made public.
 */
export const adminModerationRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);

    app.get(
      '/admin/images/moderation',
      {
        schema: {
          tags: ['admin'],
          summary: 'Images to moderate: public requests pending a decision, images found unsafe, images waiting for the safety check (oldest first)',
          querystring: ModerationQuery,
          response: { 200: Type.Array(ModerationItem), ...errors() },
        },
        config: { auth: 'admin', paged: true },
      },
      async (request, reply) => {
        const { queue, limit, page } = request.query;
        const images = deps.readStore.collection<ImageDoc>(Collections.images);
        const filter = QUEUE_FILTERS[queue];
        const count = await images.count(filter);
        setPaginationHeaders(reply, count, page, limit);
        const docs = await images.find(filter, { sort: { created_at: 1, _id: 1 }, skip: page * limit, limit });
        const rendered = await views.render(request, docs, { accountId: null, admin: true, breeds: true, categories: true, colours: false });
        return docs.map((doc, index) => ({
          image: rendered[index],
          account_id: doc.account_id,
          labels: doc.labels,
          moderation_labels: doc.moderation_labels,
          unsafe_reasons: doc.unsafe_reasons,
          public_request: doc.public_request && {
            id: doc.public_request.id,
            status: doc.public_request.status,
            request_message: doc.public_request.request_message,
            created_at: doc.public_request.created_at,
            admin_message: doc.public_request.admin_message,
          },
        }));
      },
    );
  };

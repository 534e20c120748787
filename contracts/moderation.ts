import { Type, type Static } from '@sinclair/typebox';
import { ImageSchema } from './image-resource.ts';
import { LabelSchema, ModerationLabelSchema } from './image-uploads.ts';

/**
 * The moderation queues of the operations console (admin): images whose owner asked for them to be
 * made public (`pending`), images the safety check found unsafe (`flagged`), and images still
 * waiting for the safety check (`held`). Decisions go through POST
 * /v1/images/{imageId}/public-requests/decision.
 */
export const MODERATION_QUEUES = ['pending', 'flagged', 'held'] as const;
export type ModerationQueue = (typeof MODERATION_QUEUES)[number];

export const ModerationQuery = Type.Object({
  queue: Type.Union(
    MODERATION_QUEUES.map((queue) => Type.Literal(queue)),
    { default: 'pending', description: 'pending: public requests awaiting a decision; flagged: found unsafe; held: waiting for the safety check' },
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  page: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
});
export type ModerationQuery = Static<typeof ModerationQuery>;

export const ModerationItem = Type.Object(
  {
    image: ImageSchema,
    account_id: Type.String(),
    labels: Type.Array(LabelSchema, { description: 'the analysis labels, with the detection boxes (fractions of the image)' }),
    moderation_labels: Type.Array(ModerationLabelSchema),
    unsafe_reasons: Type.Array(Type.String()),
    public_request: Type.Union([
      Type.Object({
        id: Type.String(),
        status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('rejected')]),
        request_message: Type.Union([Type.String(), Type.Null()]),
        created_at: Type.String({ format: 'date-time' }),
        admin_message: Type.Union([Type.String(), Type.Null()]),
      }),
      Type.Null(),
    ]),
  },
  { description: 'An image in a moderation queue, as its owner sees it, with its analysis and its request to be made public' },
);
export type ModerationItem = Static<typeof ModerationItem>;

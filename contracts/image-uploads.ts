/**
 * Schemas of the image write side and the pipeline views: the upload bodies (JSON and multipart),
 * the uploaded image, the processing status, the analysis in TheCatAPI's shape, and the quota.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SubId } from './common.ts';
import type { ImageDoc } from './read-models.ts';
import { ImageSchema, type Image } from './image-resource.ts';

const BreedIdList = Type.Union([Type.String({ maxLength: 1000, description: 'comma-separated breed ids' }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 20 })]);
const Dimension = Type.Integer({ minimum: 1, maximum: 10000 });

const uploadFields = {
  type: Type.Optional(Type.Union([Type.Literal('base64'), Type.Literal('file'), Type.Literal('FILE'), Type.Literal('BASE64')], { description: '`base64` with `image`; otherwise the multipart `file` part' })),
  // `pattern` rather than `minLength: 1`: Ajv counts a string's characters one by one for a length
  // rule (a 50 MB upload is ~67 million of them), while this search stops at the first character.
  image: Type.Optional(Type.String({ pattern: '\\S', description: 'with type=base64: a data URL (`data:image/png;base64,...`) or bare base64' })),
  sub_id: Type.Optional(SubId),
  breed_ids: Type.Optional(BreedIdList),
  width: Type.Optional(Dimension),
  height: Type.Optional(Dimension),
  age_months: Type.Optional(Type.Integer({ minimum: 0, maximum: 600, description: 'age of the animal in the photo, in months' })),
  original_filename: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'with type=base64: the name to keep' })),
};

export const UploadJsonBody = Type.Object(uploadFields, { additionalProperties: false });
export const UploadSyncJsonBody = Type.Object(
  { ...uploadFields, auto_crop: Type.Optional(Type.Boolean({ default: true, description: 'one child image per animal found' })) },
  { additionalProperties: false },
);
export type UploadSyncJsonBody = Static<typeof UploadSyncJsonBody>;

/**
 * The multipart form, for the OpenAPI document. Validated by the route itself as the parts stream
 * in (no `type: object` here: fastify sees no parsed body for multipart).
 */
const multipartForm = (sync: boolean) => ({
  properties: {
    file: { type: 'string', format: 'binary', description: 'the photo (JPEG, PNG, GIF or WebP, ≤ 50 MB)' },
    type: { type: 'string', enum: ['base64', 'file', 'FILE', 'BASE64'] },
    image: { type: 'string' },
    sub_id: { type: 'string', maxLength: 255 },
    breed_ids: { type: 'string', description: 'comma-separated breed ids' },
    width: { type: 'integer', minimum: 1, maximum: 10000 },
    height: { type: 'integer', minimum: 1, maximum: 10000 },
    age_months: { type: 'integer', minimum: 0, maximum: 600 },
    original_filename: { type: 'string', maxLength: 255 },
    ...(sync ? { auto_crop: { type: 'string', enum: ['true', 'false', '1', '0'] } } : {}),
  },
});

export const uploadBodySchema = (sync: boolean) => ({
  content: {
    'application/json': { schema: sync ? UploadSyncJsonBody : UploadJsonBody },
    'multipart/form-data': { schema: multipartForm(sync) },
  },
});

/** The multipart text fields, coerced from text and checked with the JSON body's rules. */
export const MultipartFields = Type.Object(
  {
    ...uploadFields,
    width: Type.Optional(Dimension),
    auto_crop: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Status = Type.Union([Type.Literal('to_be_reviewed'), Type.Literal('clean'), Type.Literal('unsafe'), Type.Literal('labelled')]);

const ImageLinks = Type.Object({ status: Type.String(), analysis: Type.String() }, { description: 'where to follow its processing' });

/** The answer to an upload: the Image (contracts/image-resource.ts) plus the links to follow its processing. */
export const UploadedImage = Type.Intersect([ImageSchema, Type.Object({ links: ImageLinks })], { description: 'An uploaded image: the Image plus links' });
export type UploadedImage = Image & { links: Static<typeof ImageLinks> };

export const imageLinks = (imageId: string): Static<typeof ImageLinks> => ({ status: `/v1/images/${imageId}/status`, analysis: `/v1/images/${imageId}/analysis` });


export const LabelSchema = Type.Object({
  Name: Type.String(),
  Confidence: Type.Number(),
  Instances: Type.Array(
    Type.Object({
      BoundingBox: Type.Object({ Width: Type.Number(), Height: Type.Number(), Left: Type.Number(), Top: Type.Number() }),
      Confidence: Type.Number(),
    }),
  ),
  Parents: Type.Array(Type.Object({ Name: Type.String() })),
});
const SuggestedBreedSchema = Type.Object({ id: Type.String(), confidence: Type.Union([Type.Number(), Type.Null()]) });
export const ModerationLabelSchema = Type.Object({ Name: Type.String(), Confidence: Type.Number(), ParentName: Type.String() });

export const AnalysedImage = Type.Intersect(
  [
    ImageSchema,
    Type.Object({
      links: ImageLinks,
      suggested_breed_ids: Type.Array(Type.String()),
      suggested_breeds: Type.Array(SuggestedBreedSchema, {
        description: 'The suggested breeds (same order as suggested_breed_ids) with their confidence 0..1 (null on images labelled before confidences were recorded)',
      }),
      duplicate_of: Type.Union([Type.String(), Type.Null()], {
        description: "the id of the same account's earlier image this one nearly duplicates (embedding cosine ≥ 0.95), null when none",
      }),
      orientation: Type.Union([Type.String(), Type.Null()]),
      labels: Type.Array(LabelSchema),
      moderation_labels: Type.Array(ModerationLabelSchema),
    }),
  ],
  { description: 'An uploaded image after its analysis (upload-sync): the Image plus links and the analysis' },
);
export type AnalysedImage = UploadedImage &
  Pick<ImageDoc, 'suggested_breed_ids' | 'orientation' | 'labels' | 'moderation_labels'> & {
    suggested_breeds: { id: string; confidence: number | null }[];
    duplicate_of: string | null;
  };

export const ImageStatusView = Type.Object({ id: Type.String(), status: Status, updated_at: Type.String({ format: 'date-time' }) });

export const ImageAnalysis = Type.Array(
  Type.Object({
    labels: Type.Array(LabelSchema),
    moderation_labels: Type.Array(ModerationLabelSchema),
    vendor: Type.String(),
    image_id: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
  }),
  { description: "TheCatAPI's analysis shape: one entry per analysis run (empty until labelled)" },
);

export const UploadQuota = Type.Object({ quota: Type.Integer(), usage: Type.Integer(), remaining: Type.Integer() });
export const SetUploadQuotaBody = Type.Object({ imageUploadQuota: Type.Integer({ minimum: 0, maximum: 10_000_000 }) }, { additionalProperties: false });
export const AccountIdParam = Type.Object({ accountId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

/** GET /images/{id}/analysis from the read model. */
export const analysisOf = (doc: ImageDoc): Static<typeof ImageAnalysis> =>
  doc.analysed_at === null
    ? []
    : [{ labels: doc.labels, moderation_labels: doc.moderation_labels, vendor: doc.vendor ?? 'unknown', image_id: doc.id, created_at: doc.analysed_at }];

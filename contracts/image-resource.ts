import { Type, type Static } from '@sinclair/typebox';
import { Breed, Colour } from './breeds.ts';
import { imageFilePath } from './image-url.ts';
import type { ImageDoc } from './read-models.ts';
import type { ImageSize, ImageUploaded } from '../domain/images/image.ts';
import { attributionOrNull, licenseFamilyOf } from '../domain/images/attribution.ts';

/**
 * The Image resource: the one shape of every image the API returns — upload and upload-sync
 * answers, GET /images/{id}, the lists and search, child images, images embedded in votes,
 * favourites and public requests, breeds' reference images, and the image webhooks. It is the
 * spec's full record plus TheCatAPI's fields (`url`, `mime_type`, `pending`/`approved` as 0/1,
 * `breed_ids`). Every field is always present: what is not known yet (or not asked for with
 * `include_*`) is an empty array or null. One serializer (`imageResource`) builds it from the
 * image read model; fields a later feature adds to images go here, in the schema and the serializer.
 *
 * Owner-only fields: the uploader's `sub_id`, `original_filename`, `unsafe_reasons` and the
 * caller's `vote`/`favourite` are shown to the image's own account (and admins) only; anyone else
 * reading a public image sees `sub_id: null`, `unsafe_reasons: []` and no `original_filename`.
 */
const S = Type.String();
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

export const ImageBreed = Type.Composite(
  [
    Breed,
    Type.Object({
      weight_imperial: Type.Optional(Type.String({ description: 'TheCatAPI: the breed weight in pounds' })),
      suppress_tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 1, description: 'TheCatAPI: 1 for a breed with a suppressed tail' })),
    }),
  ],
  { description: 'A breed tagged on the image' },
);
export type ImageBreed = Static<typeof ImageBreed>;

export const ImageCategory = Type.Object(
  { id: Type.Union([Type.Integer(), S]), name: S },
  { description: 'A category of the image (numeric id when the id is a number, as TheCatAPI)' },
);

export const ImageReview = Type.Object(
  {
    approved: Type.Boolean({ description: 'public (its request to be public was approved)' }),
    public: Type.Boolean(),
    pending: Type.Boolean({ description: 'waiting for review: the safety check has not run yet, or a request to make it public awaits a decision' }),
    rejected: Type.Boolean({ description: 'its request to be public was refused' }),
    flagged: Type.Boolean({ description: 'the safety check found it unsafe' }),
    is_portrait: Type.Boolean(),
  },
  { description: 'Where the image stands in review' },
);

export const ImageVoteRef = Type.Object({ id: Type.Integer(), value: Type.Integer(), sub_id: Nullable(S), created_at: Type.String({ format: 'date-time' }) });
export const ImageFavouriteRef = Type.Object({ id: Type.Integer(), sub_id: Nullable(S), created_at: Type.String({ format: 'date-time' }) });

export const Attribution = Type.Union(
  [
    Type.Object(
      {
        license: Type.Union([S, Type.Null()], { description: 'SPDX licence id, e.g. CC-BY-SA-4.0 or CC0-1.0; null when unknown' }),
        author: Type.Union([S, Type.Null()]),
        source_url: Type.Union([S, Type.Null()], { description: 'where the photo comes from' }),
        title: Type.Union([S, Type.Null()]),
      },
      { description: 'Who made the photo and under which licence (catalogue imports)' },
    ),
    Type.Null(),
  ],
  { description: 'Licence, author, source and title of the photo; null when unknown' },
);

const imageFields = {
  id: S,
  url: Type.String({ description: 'fetchable without the API key; `size` picks a derived size' }),
  width: Type.Integer(),
  height: Type.Integer(),
  mime_type: S,
  sub_id: Type.Union([S, Type.Null()], { description: "the uploader's end-user id: shown to the image's own account only (null for anyone else)" }),
  species_id: Type.Union([S, Type.Null()], { description: '1 cat, 2 dog, 3 horse (from labelling); null until known' }),
  status: Type.Union([Type.Literal('to_be_reviewed'), Type.Literal('clean'), Type.Literal('unsafe'), Type.Literal('labelled')]),
  breed_ids: Type.Array(S),
  breeds: Type.Array(ImageBreed, { description: 'the tagged breeds (empty with include_breeds=0)' }),
  categories: Type.Array(ImageCategory, { description: 'empty until labelled, and on search unless include_categories=1' }),
  colours: Type.Array(Colour, { description: 'dominant colours; empty until labelled, and on search unless include_colours=1' }),
  tags: Type.Array(S, { description: 'empty until labelled' }),
  age_months: Type.Union([Type.Number(), Type.Null()]),
  unsafe_reasons: Type.Array(S, { description: "why the safety check flagged it (the image's own account only; empty for anyone else)" }),
  created_at: Type.String({ format: 'date-time' }),
  review: ImageReview,
  pending: Type.Integer({ minimum: 0, maximum: 1, description: 'TheCatAPI: 1 while review.pending' }),
  approved: Type.Integer({ minimum: 0, maximum: 1, description: 'TheCatAPI: 1 once public' }),
  attribution: Attribution,
  original_filename: Type.Optional(Type.Union([S, Type.Null()], { description: "the image's own account only" })),
  vote: Type.Optional(ImageVoteRef),
  favourite: Type.Optional(ImageFavouriteRef),
};

const FractionBox = Type.Object({ left: Type.Number(), top: Type.Number(), width: Type.Number(), height: Type.Number() }, { description: 'fractions of the parent image' });

export const ChildImage = Type.Object(
  {
    ...imageFields,
    parent_image_id: S,
    crop_box: FractionBox,
    childImages: Type.Array(Type.Object({}), { maxItems: 0, description: 'a child image has none of its own' }),
  },
  { description: 'An image cropped from its parent around one detected animal: an image of its own, in full' },
);

export const Image = Type.Object({ ...imageFields, childImages: Type.Array(ChildImage, { description: 'one per animal detected when auto-cropping' }) }, { $id: 'Image', description: 'An image' });
export type Image = Static<typeof Image>;

/** The Image schema as routes reference it (`#/components/schemas/Image`: one schema in the OpenAPI document). */
export const ImageSchema = Type.Unsafe<Image>(Type.Ref('Image'));

/** An image embedded in another record whose id is not known here (votes and favourites accept any id), or not visible to the caller. */
export const UnknownImage = Type.Object(
  { id: S, url: Type.Null() },
  { description: 'an image id not known to this service, or not visible to you: only its id' },
);
export const EmbeddedImage = Type.Union([ImageSchema, UnknownImage], { description: 'the Image, or only its id when it is not known here or not visible to you' });
export type EmbeddedImage = Image | Static<typeof UnknownImage>;
export const unknownImage = (id: string): Static<typeof UnknownImage> => ({ id, url: null });

/** The url of an image's bytes: the full size at the plain address, a derived size with `?size=`. */
export const imageUrlOf = (baseUrl: string, doc: Pick<ImageDoc, 'url_token' | 'format'>, size: ImageSize = 'full'): string =>
  `${baseUrl.replace(/\/+$/, '')}${imageFilePath(doc)}${size === 'full' ? '' : `?size=${size}`}`;

/** What the serializer needs of an image: its read-model document (random order key aside). */
export type ImageRecord = Omit<ImageDoc, 'random'>;

export type ImageJoins = {
  baseUrl: string;
  size?: ImageSize;
  breeds: ImageBreed[];
  categories: Static<typeof ImageCategory>[];
  colours: Static<typeof Colour>[];
  /** Child images that still exist, as their own documents, with their joins. */
  children: { doc: ImageRecord; joins: Omit<ImageJoins, 'children' | 'baseUrl' | 'size' | 'owner'> }[];
  /**
   * Present for the image's own account (and admins): its owner-only fields, with the caller's
   * vote and favourite when it has them.
   */
  owner?: { vote?: Static<typeof ImageVoteRef>; favourite?: Static<typeof ImageFavouriteRef> };
};

/** Waiting for review: the safety check has not run yet, or a public request awaits a decision (an admin's approval ends both). */
const reviewOf = (doc: ImageRecord): Image['review'] => ({ ...doc.review, pending: !doc.review.approved && (doc.review.pending || doc.status === 'to_be_reviewed') });

const fieldsOf = (doc: ImageRecord, joins: Omit<ImageJoins, 'children'>) => {
  const review = reviewOf(doc);
  const owner = joins.owner;
  return {
    id: doc.id,
    url: imageUrlOf(joins.baseUrl, doc, joins.size),
    width: doc.width,
    height: doc.height,
    mime_type: doc.mime_type,
    sub_id: owner ? doc.sub_id : null,
    species_id: doc.species_id,
    status: doc.status,
    breed_ids: doc.breed_ids,
    breeds: joins.breeds,
    categories: joins.categories,
    colours: joins.colours,
    tags: doc.tags,
    age_months: doc.age_months,
    unsafe_reasons: owner ? doc.unsafe_reasons : [],
    created_at: doc.created_at,
    review,
    pending: review.pending ? 1 : 0,
    approved: review.approved ? 1 : 0,
    attribution: doc.attribution ?? null,
    ...(owner
      ? {
          original_filename: doc.original_filename,
          ...(owner.vote ? { vote: owner.vote } : {}),
          ...(owner.favourite ? { favourite: owner.favourite } : {}),
        }
      : {}),
  };
};

/** The Image resource of one image document and what was joined to it. */
export const imageResource = (doc: ImageRecord, joins: ImageJoins): Image => ({
  ...fieldsOf(doc, joins),
  childImages: joins.children.map((child) => ({
    ...fieldsOf(child.doc, { ...child.joins, baseUrl: joins.baseUrl, size: joins.size, owner: joins.owner && {} }),
    parent_image_id: child.doc.parent_image_id ?? doc.id,
    crop_box: child.doc.crop_box ?? { left: 0, top: 0, width: 1, height: 1 },
    childImages: [],
  })),
});

/**
 * The read-model document of an image just uploaded (what the images projection writes for
 * ImageUploaded): the upload answer and the image.uploaded webhook are serialized from it.
 */
export const uploadedImageDoc = (data: ImageUploaded['data']): ImageRecord => ({
  _id: data.image_id,
  id: data.image_id,
  account_id: data.account_id,
  sub_id: data.sub_id,
  species_id: null,
  breed_ids: [...data.breed_ids],
  suggested_breed_ids: [],
  category_ids: [],
  colour_ids: [],
  colour_codes: [],
  mime_type: data.mime_type,
  format: data.format,
  width: data.width,
  height: data.height,
  bytes: data.bytes,
  age_months: data.age_months,
  original_filename: data.original_filename,
  status: 'to_be_reviewed',
  unsafe_reasons: [],
  moderation_labels: [],
  labels: [],
  tags: [],
  orientation: null,
  public: false,
  review: { approved: false, public: false, pending: false, rejected: false, flagged: false, is_portrait: false },
  public_request: null,
  url_token: data.url_token,
  blob_keys: data.blob_keys,
  parent_image_id: data.parent_image_id,
  crop_box: data.crop_box,
  child_image_ids: [],
  vendor: null,
  analysed_at: null,
  created_at: data.created_at,
  updated_at: data.created_at,
  attribution: attributionOrNull(data.attribution),
  license_family: licenseFamilyOf(data.attribution?.license),
});

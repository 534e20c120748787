import { Type, type Static } from '@sinclair/typebox';
import { Breed, Colour } from './breeds.ts';
import { imageFilePath } from './image-url.ts';
import type { ImageDoc } from './read-models.ts';
import type { ImageSize } from '../domain/images/image.ts';

/**
 * The Image resource as the read operations show it (search, the owner's list, by id, embedded in
 * votes and favourites): the spec's full record plus TheCatAPI's fields (`url`, `mime_type`,
 * `pending`/`approved` as 0/1, `breed_ids`). `breeds`, `categories` and `colours` are present when
 * asked for (`include_breeds`, default on; `include_categories`; `include_colours`) and always on
 * the owner's list; `original_filename`, `vote` and `favourite` only on the owner's own records.
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

export const ImageReview = Type.Object({
  approved: Type.Boolean(),
  public: Type.Boolean(),
  pending: Type.Boolean(),
  rejected: Type.Boolean(),
  flagged: Type.Boolean(),
  is_portrait: Type.Boolean(),
});

export const ChildImage = Type.Object(
  { id: S, url: S, width: Type.Integer(), height: Type.Integer() },
  { description: 'An image cropped from this one around one detected animal (it is an image of its own)' },
);

export const ImageVoteRef = Type.Object({ id: Type.Integer(), value: Type.Integer(), sub_id: Nullable(S), created_at: Type.String({ format: 'date-time' }) });
export const ImageFavouriteRef = Type.Object({ id: Type.Integer(), sub_id: Nullable(S), created_at: Type.String({ format: 'date-time' }) });

export const Image = Type.Object(
  {
    id: S,
    url: Type.String({ description: 'fetchable without the API key; `size` picks a derived size' }),
    width: Type.Integer(),
    height: Type.Integer(),
    mime_type: S,
    sub_id: Nullable(S),
    species_id: Type.Union([S, Type.Null()], { description: '1 cat, 2 dog, 3 horse (from labelling); null until known' }),
    status: Type.Union([Type.Literal('to_be_reviewed'), Type.Literal('clean'), Type.Literal('unsafe'), Type.Literal('labelled')]),
    breed_ids: Type.Array(S),
    breeds: Type.Optional(Type.Array(ImageBreed)),
    categories: Type.Optional(Type.Array(ImageCategory)),
    colours: Type.Optional(Type.Array(Colour)),
    tags: Type.Array(S),
    age_months: Type.Union([Type.Number(), Type.Null()]),
    unsafe_reasons: Type.Array(S),
    created_at: Type.String({ format: 'date-time' }),
    review: ImageReview,
    childImages: Type.Array(ChildImage),
    pending: Type.Integer({ minimum: 0, maximum: 1, description: 'TheCatAPI: 1 while a request to make it public is pending' }),
    approved: Type.Integer({ minimum: 0, maximum: 1, description: 'TheCatAPI: 1 once public' }),
    original_filename: Type.Optional(Nullable(S)),
    vote: Type.Optional(ImageVoteRef),
    favourite: Type.Optional(ImageFavouriteRef),
  },
  { description: 'An image' },
);
export type Image = Static<typeof Image>;

/** The url of an image's bytes: the full size at the plain address, a derived size with `?size=`. */
export const imageUrlOf = (baseUrl: string, doc: Pick<ImageDoc, 'url_token' | 'format'>, size: ImageSize = 'full'): string =>
  `${baseUrl.replace(/\/+$/, '')}${imageFilePath(doc)}${size === 'full' ? '' : `?size=${size}`}`;

export type ImageJoins = {
  baseUrl: string;
  size?: ImageSize;
  breeds?: ImageBreed[];
  categories?: Static<typeof ImageCategory>[];
  colours?: Static<typeof Colour>[];
  /** Child images that still exist, as their own documents. */
  children: Pick<ImageDoc, 'id' | 'url_token' | 'format' | 'width' | 'height'>[];
  /** The owner's view: original_filename, and the caller's vote and favourite when present. */
  owner?: { vote?: Static<typeof ImageVoteRef>; favourite?: Static<typeof ImageFavouriteRef> };
};

export const imageResource = (doc: ImageDoc, joins: ImageJoins): Image => ({
  id: doc.id,
  url: imageUrlOf(joins.baseUrl, doc, joins.size),
  width: doc.width,
  height: doc.height,
  mime_type: doc.mime_type,
  sub_id: doc.sub_id,
  species_id: doc.species_id,
  status: doc.status,
  breed_ids: doc.breed_ids,
  ...(joins.breeds ? { breeds: joins.breeds } : {}),
  ...(joins.categories ? { categories: joins.categories } : {}),
  ...(joins.colours ? { colours: joins.colours } : {}),
  tags: doc.tags,
  age_months: doc.age_months,
  unsafe_reasons: doc.unsafe_reasons,
  created_at: doc.created_at,
  review: doc.review,
  childImages: joins.children.map((child) => ({ id: child.id, url: imageUrlOf(joins.baseUrl, child, joins.size), width: child.width, height: child.height })),
  pending: doc.review.pending ? 1 : 0,
  approved: doc.review.approved ? 1 : 0,
  ...(joins.owner
    ? {
        original_filename: doc.original_filename,
        ...(joins.owner.vote ? { vote: joins.owner.vote } : {}),
        ...(joins.owner.favourite ? { favourite: joins.owner.favourite } : {}),
      }
    : {}),
});

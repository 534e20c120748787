import { Type, type Static } from '@sinclair/typebox';
import { CommaList, CountryCode, ImageId, IpAddress, QueryBoolean, SpeciesIdParam, SubId } from './common.ts';
import { EmbeddedImage, unknownImage, type EmbeddedImage as EmbeddedImageValue } from './image-resource.ts';
import { styleA } from './paging.ts';
import { Lang } from './language.ts';

export const Favourite = Type.Object(
  {
    id: Type.Integer(),
    image_id: Type.String(),
    sub_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    is_deleted: Type.Boolean(),
    image: EmbeddedImage,
  },
  { description: 'A favourite image' },
);
export type Favourite = Static<typeof Favourite>;

export const CreateFavouriteBody = Type.Object(
  {
    image_id: ImageId,
    sub_id: Type.Optional(SubId),
    client_ip_address: Type.Optional(IpAddress),
    ip_address: Type.Optional(IpAddress),
    country_code: Type.Optional(CountryCode),
  },
  { additionalProperties: false },
);
export type CreateFavouriteBody = Static<typeof CreateFavouriteBody>;

export const CreatedFavourite = Type.Composite([Type.Object({ message: Type.Literal('SUCCESS') }), Type.Omit(Favourite, [])], {
  description: 'The favourite just recorded',
});

export const ListFavouritesQuery = Type.Object({
  ...styleA({ limit: 10, order: 'ASC' }),
  sub_id: Type.Optional(SubId),
  image_id: Type.Optional(ImageId),
  account_id: Type.Optional(Type.String({ maxLength: 64, description: 'must be your own account id' })),
  species_id: Type.Optional(SpeciesIdParam),
  breed_groups: Type.Optional(CommaList('only favourites of images of these breed groups')),
  exclude_breed_groups: Type.Optional(CommaList('no favourites of images of these breed groups')),
  is_deleted: Type.Optional(QueryBoolean('also list deleted favourites', false)),
  attach_image: Type.Optional(QueryBoolean('accepted for TheCatAPI clients: the image is always embedded in full', false)),
  lang: Lang,
});
export type ListFavouritesQuery = Static<typeof ListFavouritesQuery>;

export const AttachImageQuery = Type.Object({ attach_image: Type.Optional(QueryBoolean('accepted for TheCatAPI clients: the image is always embedded in full', false)) });


/** The Favourite resource as the API shows it; `image` as embedded (only its id when not known here). */
export const favouriteResource = (favourite: {
  favourite_id: number;
  image_id: string;
  sub_id: string | null;
  created_at: string;
}, options: { deleted?: boolean; image?: EmbeddedImageValue } = {}): Favourite => ({
  id: favourite.favourite_id,
  image_id: favourite.image_id,
  sub_id: favourite.sub_id,
  created_at: favourite.created_at,
  is_deleted: options.deleted ?? false,
  image: options.image ?? unknownImage(favourite.image_id),
});

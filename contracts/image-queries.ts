import { Type, type Static } from '@sinclair/typebox';
import { CommaList, ImageId, QueryBoolean, SpeciesIdParam, SubId } from './common.ts';
import { RecordId } from './facts.ts';
import { Lang } from './language.ts';
import { styleA, type Order } from './paging.ts';
import { IMAGE_SIZES } from '../domain/images/image.ts';
import { LICENSE_FAMILIES } from '../domain/images/attribution.ts';

/**
 * The filters of the image lists — the spec's (List images) and TheCatAPI's (`breed_ids`,
 * `category_ids`, `mime_types`, `size`, `format`). Booleans take true/false and 1/0.
 */
const filters = {
  species_id: Type.Optional(SpeciesIdParam),
  breed_groups: Type.Optional(CommaList('only images with a breed of these breed groups (case-insensitive)')),
  exclude_breed_groups: Type.Optional(CommaList('no images with a breed of these breed groups (case-insensitive)')),
  lang: Lang,
  has_breeds: Type.Optional(QueryBoolean('1: only images with a breed tagged; 0: only images without')),
  include_breeds: Type.Optional(QueryBoolean('embed the tagged breeds (`breeds`)', true)),
  include_categories: Type.Optional(QueryBoolean('embed the categories (`categories`)', false)),
  include_colours: Type.Optional(QueryBoolean('embed the colours (`colours`)', false)),
  account_id: Type.Optional(Type.String({ maxLength: 64, description: 'only images of this account: must be your own account id' })),
  breed_id: Type.Optional(RecordId),
  breed_ids: Type.Optional(CommaList('only images with any of these breeds')),
  category_ids: Type.Optional(CommaList('only images in any of these categories')),
  colour_id: Type.Optional(Type.String({ maxLength: 64 })),
  colour_ids: Type.Optional(CommaList('only images with any of these colours (ids)')),
  colour_code: Type.Optional(Type.String({ maxLength: 32, description: 'a colour code (case-insensitive)' })),
  has_colours: Type.Optional(QueryBoolean('1: only images with a colour found; 0: only images without')),
  age_months_min: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000 })),
  age_months_max: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000 })),
  sub_id: Type.Optional(SubId),
  license: Type.Optional(
    CommaList(`only images under a licence of any of these families: ${LICENSE_FAMILIES.join(', ')} (cc-by-sa is every CC BY-SA version; images without a licence are in none)`),
  ),
  mime_types: Type.Optional(CommaList('jpg, png, gif, webp (any of; `jpeg` and full types like image/png also accepted)')),
  order_by: Type.Optional(
    Type.Union([Type.Literal('created_at'), Type.Literal('sub_id'), Type.Literal('breeds'), Type.Literal('id')], {
      description: 'sort field for order ASC/DESC (default created_at)',
    }),
  ),
  size: Type.Optional(Type.Union(IMAGE_SIZES.map((size) => Type.Literal(size)), { description: 'the size `url` points at (default full)' })),
};

const imageListQuery = (defaults: { limit: number; order?: Order }) => Type.Object({ ...styleA(defaults), ...filters });

/** GET /images/search: default limit 1, random order (paging applies to ASC/DESC only). */
export const SearchImagesQuery = Type.Object({
  ...styleA({ limit: 1 }),
  ...filters,
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('src')], { description: 'src: redirect to the first image’s bytes' })),
});
export type SearchImagesQuery = Static<typeof SearchImagesQuery>;

/** GET /images: the caller's own images, newest first by default. */
export const ListImagesQuery = imageListQuery({ limit: 10, order: 'DESC' });
export type ListImagesQuery = Static<typeof ListImagesQuery>;

export type ImageFilterQuery = Static<ReturnType<typeof imageListQuery>>;

export const ImageIdParams = Type.Object({ id: ImageId });
export const ImageBreedParams = Type.Object({ id: ImageId, breedId: RecordId });
export const ImageReadQuery = Type.Object({
  size: filters.size,
  lang: Lang,
  include_breeds: filters.include_breeds,
  include_categories: filters.include_categories,
  include_colours: filters.include_colours,
});
export type ImageReadQuery = Static<typeof ImageReadQuery>;

export const TagBreedBody = Type.Object({ breed_id: RecordId }, { additionalProperties: false });
export const BreedLangQuery = Type.Object({ lang: Lang });

import { Type, type Static } from '@sinclair/typebox';
import { CommaList, SpeciesIdParam } from './common.ts';
import { Lang } from './language.ts';
import { styleA } from './paging.ts';

export const Category = Type.Object(
  { id: Type.String(), name: Type.String(), species_id: Type.String({ description: '1 cat, 2 dog, 3 horse' }) },
  { description: 'An image category' },
);
export type Category = Static<typeof Category>;

/** Default limit 100 (the maximum) so a plain GET /categories lists them all, as TheCatAPI does. */
export const ListCategoriesQuery = Type.Object({
  ...styleA({ limit: 100, order: 'ASC' }),
  species_id: Type.Optional(SpeciesIdParam),
  breed_groups: Type.Optional(CommaList('accepted for compatibility; categories belong to no breed group')),
  exclude_breed_groups: Type.Optional(CommaList('accepted for compatibility; categories belong to no breed group')),
  lang: Lang,
});
export type ListCategoriesQuery = Static<typeof ListCategoriesQuery>;

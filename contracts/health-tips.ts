import { Type, type Static } from '@sinclair/typebox';
import { TIP_CATEGORIES } from '../domain/reference-data/vocabulary.ts';
import { QueryBoolean } from './common.ts';
import { RecordId, SpeciesNumberParam } from './facts.ts';
import { IncludeSourcesDescription, ItemLanguage, Lang } from './language.ts';
import { styleB } from './paging.ts';

export const HealthTip = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    category: Type.String({ description: TIP_CATEGORIES.join(', ') }),
    description: Type.String(),
    species_id: Type.Integer({ description: '1 cat, 2 dog, 3 horse' }),
    breed_id: Type.Union([Type.String(), Type.Null()], { description: 'the breed the tip is for; null for the whole species' }),
    language: ItemLanguage,
    sources: Type.Optional(Type.Array(Type.String(), { description: 'only with include_sources=true' })),
  },
  { description: 'A health tip' },
);
export type HealthTip = Static<typeof HealthTip>;

const readOptions = {
  include_sources: Type.Optional(QueryBoolean(IncludeSourcesDescription, false)),
  lang: Lang,
};

export const HealthTipReadQuery = Type.Object(readOptions);
export type HealthTipReadQuery = Static<typeof HealthTipReadQuery>;

export const ListHealthTipsQuery = Type.Object({
  ...styleB({ limit: 10 }),
  breed_id: Type.Optional(RecordId),
  species_id: Type.Optional(SpeciesNumberParam),
  ...readOptions,
});
export type ListHealthTipsQuery = Static<typeof ListHealthTipsQuery>;

export const BreedHealthTipsQuery = Type.Object({ ...styleB({ limit: 10 }), ...readOptions });
export type BreedHealthTipsQuery = Static<typeof BreedHealthTipsQuery>;

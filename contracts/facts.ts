import { Type, type Static } from '@sinclair/typebox';
import { FACT_CATEGORIES } from '../domain/reference-data/vocabulary.ts';
import { QueryBoolean } from './common.ts';
import { IncludeSourcesDescription, ItemLanguage, Lang } from './language.ts';
import { styleB } from './paging.ts';

export const Fact = Type.Object(
  {
    id: Type.String(),
    title: Type.String(),
    fact: Type.String({ description: 'body text' }),
    slug: Type.String(),
    category: Type.String({ description: FACT_CATEGORIES.join(', ') }),
    species_id: Type.Integer({ description: '1 cat, 2 dog, 3 horse' }),
    breed_id: Type.Union([Type.String(), Type.Null()], { description: 'the breed the fact is about; null for the whole species' }),
    language: ItemLanguage,
    sources: Type.Optional(Type.Array(Type.String(), { description: 'only with include_sources=true' })),
  },
  { description: 'An animal fact' },
);
export type Fact = Static<typeof Fact>;

export const RecordId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const SpeciesNumberParam = Type.Integer({ minimum: 1, maximum: 999, description: '1 cat, 2 dog, 3 horse' });
export const BreedIdParams = Type.Object({ breedId: RecordId });
export const SpeciesIdParams = Type.Object({ speciesId: SpeciesNumberParam });
export const RecordIdParams = Type.Object({ id: RecordId });

const readOptions = {
  include_sources: Type.Optional(QueryBoolean(IncludeSourcesDescription, false)),
  lang: Lang,
};

export const FactReadQuery = Type.Object(readOptions);
export type FactReadQuery = Static<typeof FactReadQuery>;

const factFilters = {
  breed_id: Type.Optional(RecordId),
  species_id: Type.Optional(SpeciesNumberParam),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: `case-insensitive: ${FACT_CATEGORIES.join(', ')}` })),
};

export const ListFactsQuery = Type.Object({ ...styleB({ limit: 10 }), ...factFilters, ...readOptions });
export type ListFactsQuery = Static<typeof ListFactsQuery>;

export const RandomFactQuery = Type.Object({ ...factFilters, ...readOptions });
export type RandomFactQuery = Static<typeof RandomFactQuery>;

export const BreedFactsQuery = Type.Object({ ...styleB({ limit: 10 }), ...readOptions });
export type BreedFactsQuery = Static<typeof BreedFactsQuery>;

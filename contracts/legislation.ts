import { Type, type Static, type TLiteral, type TUnion } from '@sinclair/typebox';
import { ANIMAL_TYPES, APPROACHES, LEGISLATION_TYPES } from '../domain/reference-data/vocabulary.ts';
import { CommaList, CountryCode, SpeciesIdParam } from './common.ts';
import { Lang } from './language.ts';
import { styleA } from './paging.ts';

const S = Type.String();
const literals = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    description ? { description } : {},
  ) as TUnion<TLiteral<T[number]>[]>;

export const CountryListItem = Type.Object(
  {
    iso_code: S,
    name: S,
    has_national_legislation: Type.Boolean(),
    legislation_level: Type.String({ description: 'national, regional, municipal, mixed or none' }),
  },
  { description: 'A country with breed legislation' },
);
export type CountryListItem = Static<typeof CountryListItem>;

export const Jurisdiction = Type.Object({ name: S, type: Type.String({ description: 'state, province, canton, land, autonomous_community, city, county or municipality' }) });

export const Legislation = Type.Object(
  {
    id: Type.Integer(),
    country_iso_code: S,
    legislation_name: S,
    legislation_type: S,
    approach: S,
    status: Type.String({ description: 'in_force or repealed' }),
    animal_type: S,
    effective_date: S,
    source_url: S,
    summary: S,
    jurisdiction: Type.Union([Jurisdiction, Type.Null()], { description: 'null for national legislation' }),
    banned_breeds: Type.Array(
      Type.Object({
        breed_id: S,
        breed_name: S,
        ban_type: S,
        filial_generation: S,
        conditions: S,
        penalty_summary: S,
        includes_mixes: Type.Boolean(),
      }),
    ),
    characteristics: Type.Array(Type.Object({ type: S, operator: S, value: S, unit: S, description: S })),
    requirements: Type.Array(Type.Object({ type: S, description: S, value: S, is_mandatory: Type.Boolean() })),
  },
  { description: 'A law or ordinance about dog or cat breeds' },
);
export type Legislation = Static<typeof Legislation>;

export const CountryLegislation = Type.Object(
  {
    country: CountryListItem,
    legislation: Type.Array(Legislation, { description: 'national legislation' }),
    jurisdictions: Type.Array(Type.Object({ name: S, type: S, legislation: Type.Array(Legislation) }), {
      description: 'legislation of states, provinces, cantons, cities… of the country',
    }),
  },
  { description: 'The breed legislation of one country' },
);

export const BreedLegislationItem = Type.Object(
  {
    country_iso_code: S,
    country_name: S,
    jurisdiction_name: Type.Union([S, Type.Null()], { description: 'null for national legislation' }),
    jurisdiction_type: Type.Union([S, Type.Null()]),
    ban_type: Type.String({ description: 'ban, restriction or permit' }),
    legislation_id: Type.Integer(),
    legislation_name: S,
    conditions: S,
    includes_mixes: Type.Boolean(),
  },
  { description: 'Where a breed is banned, restricted or needs a permit' },
);

const speciesOrAnimal = {
  species_id: Type.Optional(SpeciesIdParam),
  animal_type: Type.Optional(literals(ANIMAL_TYPES, 'dog or cat')),
};

export const ListCountriesQuery = Type.Object(speciesOrAnimal);
export type ListCountriesQuery = Static<typeof ListCountriesQuery>;

export const CountryLegislationQuery = Type.Object({
  country: CountryCode,
  legislation_type: Type.Optional(literals(LEGISLATION_TYPES)),
  approach: Type.Optional(literals(APPROACHES)),
  jurisdiction: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'name of a state, city, canton… (case-insensitive)' })),
  ...styleA({ limit: 10, order: 'ASC' }),
  ...speciesOrAnimal,
  breed_groups: Type.Optional(CommaList('only laws naming breeds of these groups (case-insensitive)')),
  exclude_breed_groups: Type.Optional(CommaList('no laws naming only breeds of these groups (case-insensitive)')),
  lang: Lang,
});
export type CountryLegislationQuery = Static<typeof CountryLegislationQuery>;

export const BreedLegislationQuery = Type.Object({ species_id: Type.Optional(SpeciesIdParam) });

import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreedIdParams } from '../../contracts/facts.ts';
import {
  BreedLegislationItem,
  BreedLegislationQuery,
  CountryLegislation,
  CountryLegislationQuery,
  CountryListItem,
  ListCountriesQuery,
  type Legislation,
} from '../../contracts/legislation.ts';
import { errors } from '../../contracts/common.ts';
import { normaliseOrder } from '../../contracts/paging.ts';
import { REFERENCE_COLLECTIONS, type BreedDoc, type CountryDoc, type LegislationDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Filter } from '../../infrastructure/read-store/port.ts';
import { commaList, drawRandom, setPaginationHeaders } from '../../http/paging.ts';
import { requireBreed } from '../reference-lookups.ts';
import type { QueryApiDeps } from '../deps.ts';
import { registerConditionalGet } from '../../http/conditional.ts';
import { readsDependOn } from '../../http/consistency.ts';

const toCountry = (doc: CountryDoc) => ({
  iso_code: doc.iso_code,
  name: doc.name,
  has_national_legislation: doc.has_national_legislation,
  legislation_level: doc.legislation_level,
});

const toLegislation = (doc: LegislationDoc): Legislation => ({
  id: doc.id,
  country_iso_code: doc.country_iso_code,
  legislation_name: doc.legislation_name,
  legislation_type: doc.legislation_type,
  approach: doc.approach,
  status: doc.status,
  animal_type: doc.animal_type,
  effective_date: doc.effective_date,
  source_url: doc.source_url,
  summary: doc.summary,
  jurisdiction: doc.jurisdiction,
  banned_breeds: doc.banned_breeds,
  characteristics: doc.characteristics,
  requirements: doc.requirements,
});

/** species_id and animal_type both narrow the animal; 1 cat, 2 dog (laws cover no other species). */
const speciesFilter = (query: { species_id?: string; animal_type?: 'dog' | 'cat' }): Filter => {
  const species = new Set(['1', '2']);
  if (query.species_id !== undefined) for (const id of [...species]) if (id !== query.species_id) species.delete(id);
  if (query.animal_type !== undefined) species.delete(query.animal_type === 'dog' ? '1' : '2');
  return query.species_id === undefined && query.animal_type === undefined ? {} : { species_id: { $in: [...species] } };
};

/**
 * Breed-specific legislation: the countries that have some, one country's laws (national ones in
 * `legislation`, those of states, cities, cantons… grouped in `jurisdictions`), and where one
 * breed is banned, restricted or needs a permit (laws in force only).
 */
export const legislationQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    // Legislation and the breeds it names (whose reference_image_id follows public images).
    readsDependOn(instance, ['public-images']);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    await registerConditionalGet(instance);
    const countries = () => deps.readStore.collection<CountryDoc>(REFERENCE_COLLECTIONS.countries);
    const laws = () => deps.readStore.collection<LegislationDoc>(REFERENCE_COLLECTIONS.legislation);
    const tags = ['legislation'];

    app.get(
      '/breeds/bans/countries',
      {
        schema: {
          tags,
          summary: 'Countries with breed legislation (for a species or animal type: those with laws about it)',
          querystring: ListCountriesQuery,
          response: { 200: Type.Array(CountryListItem), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const filter = speciesFilter(request.query);
        let docs = await countries().find({}, { sort: { name: 1, _id: 1 } });
        if (Object.keys(filter).length > 0) {
          const withLaws = new Set((await laws().find(filter)).map((law) => law.country_iso_code));
          docs = docs.filter((doc) => withLaws.has(doc.iso_code));
        }
        setPaginationHeaders(reply, docs.length, 0, Math.max(docs.length, 1));
        return docs.map(toCountry);
      },
    );

    app.get(
      '/breeds/bans/country',
      {
        schema: {
          tags,
          summary: "One country's breed legislation (paging style A over its laws)",
          querystring: CountryLegislationQuery,
          response: { 200: CountryLegislation, ...errors(404) },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const query = request.query;
        const iso = query.country.toUpperCase();
        const country = await countries().get(iso);
        if (!country) throw new DomainError('not_found', `no breed legislation known for country '${iso}'`);
        const filter: Filter = {
          country_iso_code: iso,
          ...speciesFilter(query),
          ...(query.legislation_type ? { legislation_type: query.legislation_type } : {}),
          ...(query.approach ? { approach: query.approach } : {}),
          ...(query.jurisdiction ? { jurisdiction_name_lc: query.jurisdiction.toLowerCase() } : {}),
        };
        let matching = await laws().find(filter, { sort: { id: 1 } });
        const include = new Set(commaList(query.breed_groups));
        const exclude = new Set(commaList(query.exclude_breed_groups));
        if (include.size > 0 || exclude.size > 0) {
          const breeds = deps.readStore.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
          const groupsOf = async (law: LegislationDoc) =>
            (await Promise.all(law.banned_breed_ids.map((id) => breeds.get(id)))).flatMap((breed) => (breed ? [breed.breed_group_lc] : []));
          const kept: LegislationDoc[] = [];
          for (const law of matching) {
            const groups = await groupsOf(law);
            if (include.size > 0 && !groups.some((group) => include.has(group))) continue;
            if (exclude.size > 0 && groups.length > 0 && groups.every((group) => exclude.has(group))) continue;
            kept.push(law);
          }
          matching = kept;
        }
        setPaginationHeaders(reply, matching.length, query.page, query.limit);
        const order = normaliseOrder(query.order) ?? 'ASC';
        const start = query.page * query.limit;
        const page =
          order === 'RANDOM'
            ? drawRandom(matching, query.limit)
            : (order === 'DESC' ? matching.slice().reverse() : matching).slice(start, start + query.limit);
        const jurisdictions = new Map<string, { name: string; type: string; legislation: Legislation[] }>();
        const national: Legislation[] = [];
        for (const law of page) {
          if (!law.jurisdiction) {
            national.push(toLegislation(law));
            continue;
          }
          const key = `${law.jurisdiction.type}\u0000${law.jurisdiction.name}`;
          let group = jurisdictions.get(key);
          if (!group) jurisdictions.set(key, (group = { name: law.jurisdiction.name, type: law.jurisdiction.type, legislation: [] }));
          group.legislation.push(toLegislation(law));
        }
        reply.header('Content-Language', 'en');
        return { country: toCountry(country), legislation: national, jurisdictions: [...jurisdictions.values()] };
      },
    );

    app.get(
      '/breeds/:breedId/legislation',
      {
        schema: {
          tags,
          summary: 'Where a breed is banned, restricted or needs a permit (laws in force)',
          params: BreedIdParams,
          querystring: BreedLegislationQuery,
          response: { 200: Type.Array(BreedLegislationItem), ...errors(404) },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const breed = await requireBreed(deps.readStore, request.params.breedId);
        const items: (typeof BreedLegislationItem.static)[] = [];
        if (request.query.species_id === undefined || request.query.species_id === breed.species_id) {
          const found = await laws().find({ banned_breed_ids: breed.id, status: 'in_force' }, { sort: { country_iso_code: 1, id: 1 } });
          const names = new Map<string, string>();
          for (const law of found) {
            if (!names.has(law.country_iso_code)) names.set(law.country_iso_code, (await countries().get(law.country_iso_code))?.name ?? law.country_iso_code);
            for (const banned of law.banned_breeds) {
              if (banned.breed_id !== breed.id) continue;
              items.push({
                country_iso_code: law.country_iso_code,
                country_name: names.get(law.country_iso_code) as string,
                jurisdiction_name: law.jurisdiction?.name ?? null,
                jurisdiction_type: law.jurisdiction?.type ?? null,
                ban_type: banned.ban_type,
                legislation_id: law.id,
                legislation_name: law.legislation_name,
                conditions: banned.conditions,
                includes_mixes: banned.includes_mixes,
              });
            }
          }
        }
        setPaginationHeaders(reply, items.length, 0, Math.max(items.length, 1));
        return items;
      },
    );
  };

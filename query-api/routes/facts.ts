import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  BreedFactsQuery,
  BreedIdParams,
  Fact,
  FactReadQuery,
  ListFactsQuery,
  RandomFactQuery,
  RecordIdParams,
  SpeciesIdParams,
} from '../../contracts/facts.ts';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { REFERENCE_COLLECTIONS, type FactDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import type { StyleBQuery } from '../../contracts/paging.ts';
import type { Filter } from '../../infrastructure/read-store/port.ts';
import { pageStyleB } from '../../http/paging.ts';
import { ServedLanguage } from '../language.ts';
import { requireBreed } from '../reference-lookups.ts';
import type { QueryApiDeps } from '../deps.ts';
import { registerConditionalGet } from '../../http/conditional.ts';
import { readsDependOn } from '../../http/consistency.ts';

export const toFact = (doc: FactDoc, served: ServedLanguage, includeSources: boolean): Fact => {
  const { translation, language } = served.pick(doc.translations);
  return {
    id: doc.id,
    title: translation?.title ?? doc.title,
    fact: translation?.fact ?? doc.fact,
    slug: doc.slug,
    category: doc.category,
    species_id: doc.species_id,
    breed_id: doc.breed_id,
    language,
    ...(includeSources ? { sources: doc.sources } : {}),
  };
};

const factFilter = (query: { breed_id?: string; species_id?: number; category?: string }): Filter => ({
  ...(query.breed_id ? { breed_id: query.breed_id } : {}),
  ...(query.species_id !== undefined ? { species_id: query.species_id } : {}),
  ...(query.category ? { category_lc: query.category.toLowerCase() } : {}),
});

/**
 * Facts: lists (paging style B, ordered by id), random draws over the filtered set (404 when the
 * set is empty), by breed and by id. `sources` only with include_sources=true; `lang` translates.
 */
export const factQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    // Facts: reference data, which no account's request writes.
    readsDependOn(instance, []);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    await registerConditionalGet(instance);
    const facts = () => deps.readStore.collection<FactDoc>(REFERENCE_COLLECTIONS.facts);
    const tags = ['facts'];

    const listOf = async (request: FastifyRequest, reply: FastifyReply, filter: Filter, query: StyleBQuery & { include_sources?: string }) => {
      const docs = await pageStyleB(reply, facts(), filter, query, { _id: 1 });
      const served = ServedLanguage.of(request);
      const list = docs.map((doc) => toFact(doc, served, queryBoolean(query.include_sources) === true));
      served.apply(reply);
      return list;
    };

    const randomOf = async (request: FastifyRequest, reply: FastifyReply, filter: Filter, query: { include_sources?: string }, what: string) => {
      const [doc] = await facts().sample(filter, 1);
      if (!doc) throw new DomainError('not_found', `no fact matches ${what}`);
      const served = ServedLanguage.of(request);
      const fact = toFact(doc, served, queryBoolean(query.include_sources) === true);
      served.apply(reply);
      return fact;
    };

    app.get(
      '/facts',
      {
        schema: { tags, summary: 'List facts (paging style B)', querystring: ListFactsQuery, response: { 200: Type.Array(Fact), ...errors() } },
        config: { paged: true },
      },
      async (request, reply) => listOf(request, reply, factFilter(request.query), request.query),
    );

    app.get(
      '/facts/random',
      {
        schema: {
          tags,
          summary: 'A random fact (optionally of a species, breed or category)',
          querystring: RandomFactQuery,
          response: { 200: Fact, ...errors(404) },
        },
      },
      async (request, reply) => randomOf(request, reply, factFilter(request.query), request.query, 'these filters'),
    );

    const breedFactsSchema = (summary: string) => ({
      tags,
      summary,
      params: BreedIdParams,
      querystring: BreedFactsQuery,
      response: { 200: Type.Array(Fact), ...errors(404) },
    });
    const breedFacts = async (request: FastifyRequest<{ Params: { breedId: string }; Querystring: BreedFactsQuery }>, reply: FastifyReply) => {
      await requireBreed(deps.readStore, request.params.breedId);
      return listOf(request, reply, { breed_id: request.params.breedId }, request.query);
    };
    app.get('/facts/breed/:breedId', { schema: breedFactsSchema('Facts about a breed (paging style B)'), config: { paged: true } }, breedFacts);
    app.get('/breeds/:breedId/facts', { schema: breedFactsSchema('Facts about a breed (alias of /facts/breed/{breedId})'), config: { paged: true } }, breedFacts);

    app.get(
      '/facts/breed/:breedId/random',
      {
        schema: { tags, summary: 'A random fact about a breed', params: BreedIdParams, querystring: FactReadQuery, response: { 200: Fact, ...errors(404) } },
      },
      async (request, reply) => {
        await requireBreed(deps.readStore, request.params.breedId);
        return randomOf(request, reply, { breed_id: request.params.breedId }, request.query, `breed '${request.params.breedId}'`);
      },
    );

    app.get(
      '/facts/species/:speciesId/random',
      {
        schema: {
          tags,
          summary: 'A random fact about a species (1 cat, 2 dog, 3 horse)',
          params: SpeciesIdParams,
          querystring: FactReadQuery,
          response: { 200: Fact, ...errors(404) },
        },
      },
      async (request, reply) => randomOf(request, reply, { species_id: request.params.speciesId }, request.query, `species ${request.params.speciesId}`),
    );

    app.get(
      '/facts/:id',
      { schema: { tags, summary: 'One fact', params: RecordIdParams, querystring: FactReadQuery, response: { 200: Fact, ...errors(404) } } },
      async (request, reply) => {
        const doc = await facts().get(request.params.id);
        if (!doc) throw new DomainError('not_found', `fact '${request.params.id}' not found`);
        const served = ServedLanguage.of(request);
        const fact = toFact(doc, served, queryBoolean(request.query.include_sources) === true);
        served.apply(reply);
        return fact;
      },
    );
  };

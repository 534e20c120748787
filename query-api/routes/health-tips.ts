import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreedHealthTipsQuery, HealthTip, HealthTipReadQuery, ListHealthTipsQuery } from '../../contracts/health-tips.ts';
import { BreedIdParams, RecordIdParams } from '../../contracts/facts.ts';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { REFERENCE_COLLECTIONS, type HealthTipDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import type { StyleBQuery } from '../../contracts/paging.ts';
import type { Filter } from '../../infrastructure/read-store/port.ts';
import { pageStyleB } from '../../http/paging.ts';
import { ServedLanguage } from '../language.ts';
import { requireBreed } from '../reference-lookups.ts';
import type { QueryApiDeps } from '../deps.ts';
import { registerConditionalGet } from '../../http/conditional.ts';
import { readsDependOn } from '../../http/consistency.ts';

export const toHealthTip = (doc: HealthTipDoc, served: ServedLanguage, includeSources: boolean): HealthTip => {
  const { translation, language } = served.pick(doc.translations);
  return {
    id: doc.id,
    title: translation?.title ?? doc.title,
    category: doc.category,
    description: translation?.description ?? doc.description,
    species_id: doc.species_id,
    breed_id: doc.breed_id,
    language,
    ...(includeSources ? { sources: doc.sources } : {}),
  };
};

/** Health tips: lists (paging style B, ordered by id), by breed and by id; `lang` translates. */
export const healthTipQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    // Health tips: reference data, which no account's request writes.
    readsDependOn(instance, []);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    await registerConditionalGet(instance);
    const tips = () => deps.readStore.collection<HealthTipDoc>(REFERENCE_COLLECTIONS.healthTips);
    const tags = ['health tips'];

    const listOf = async (request: FastifyRequest, reply: FastifyReply, filter: Filter, query: StyleBQuery & { include_sources?: string }) => {
      const docs = await pageStyleB(reply, tips(), filter, query, { _id: 1 });
      const served = ServedLanguage.of(request);
      const list = docs.map((doc) => toHealthTip(doc, served, queryBoolean(query.include_sources) === true));
      served.apply(reply);
      return list;
    };

    app.get(
      '/health-tips',
      {
        schema: {
          tags,
          summary: 'List health tips (paging style B)',
          querystring: ListHealthTipsQuery,
          response: { 200: Type.Array(HealthTip), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const query = request.query;
        const filter: Filter = {
          ...(query.breed_id ? { breed_id: query.breed_id } : {}),
          ...(query.species_id !== undefined ? { species_id: query.species_id } : {}),
        };
        return listOf(request, reply, filter, query);
      },
    );

    app.get(
      '/health-tips/breed/:breedId',
      {
        schema: {
          tags,
          summary: 'Health tips for a breed (paging style B)',
          params: BreedIdParams,
          querystring: BreedHealthTipsQuery,
          response: { 200: Type.Array(HealthTip), ...errors(404) },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        await requireBreed(deps.readStore, request.params.breedId);
        return listOf(request, reply, { breed_id: request.params.breedId }, request.query);
      },
    );

    app.get(
      '/health-tips/:id',
      {
        schema: { tags, summary: 'One health tip', params: RecordIdParams, querystring: HealthTipReadQuery, response: { 200: HealthTip, ...errors(404) } },
      },
      async (request, reply) => {
        const doc = await tips().get(request.params.id);
        if (!doc) throw new DomainError('not_found', `health tip '${request.params.id}' not found`);
        const served = ServedLanguage.of(request);
        const tip = toHealthTip(doc, served, queryBoolean(request.query.include_sources) === true);
        served.apply(reply);
        return tip;
      },
    );
  };

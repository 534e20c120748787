import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Breed, BreedIdParams, BreedReadQuery, Colour, ListBreedsQuery, SearchBreedsQuery } from '../../contracts/breeds.ts';
import { ImageSchema } from '../../contracts/image-resource.ts';
import { accountOf } from '../../http/auth.ts';
import { imageViews } from '../../http/image-views.ts';
import { ServedLanguage } from '../language.ts';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { normaliseOrder } from '../../contracts/paging.ts';
import { REFERENCE_COLLECTIONS, type ColourDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { commaList, setPaginationHeaders } from '../../http/paging.ts';
import { breedCatalogue, encodedBody } from '../breed-catalogue.ts';
import { acceptedEncoding, ifNoneMatchHits, registerConditionalGet } from '../../http/conditional.ts';
import { addVary, requestedLanguage } from '../language.ts';
import type { QueryApiDeps } from '../deps.ts';
import { readsDependOn } from '../../http/consistency.ts';

type BreedListQuery = {
  limit: number;
  page: number;
  order?: string;
  species_id?: string;
  breed_groups?: string;
  exclude_breed_groups?: string;
  q?: string;
  venom_code?: string;
  extinct?: string;
  attach_image?: string;
};

/** Bodies below this go out uncompressed (as @fastify/compress's threshold). */
const COMPRESS_FROM_BYTES = 1024;

/**
 * Sends JSON serialised in advance (the catalogue serialises each breed once per language; a unit
 * test holds that shape to the Breed schema the route documents): bytes go out untouched.
 */
const sendJson = (reply: FastifyReply, json: Buffer): FastifyReply => reply.type('application/json; charset=utf-8').send(json);

const toColour = (doc: ColourDoc) => ({
  id: doc.id,
  species_id: doc.species_id,
  breed_id: doc.breed_id,
  code: doc.code,
  name: doc.name,
  base_colour: doc.base_colour,
  pattern: doc.pattern,
  standard: doc.standard,
  description: doc.description,
});

/**
 * Breeds: the large list (GET /breeds, limit ≤ 1000), the style-A search (GET /breeds/search),
 * one breed, and its colour variants. Lists are ordered by name; `lang` translates name and
 * description.
 */
export const breedQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    // Breeds: reference data, but a breed's reference_image_id follows public images, which their owners tag and delete.
    readsDependOn(instance, ['images']);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const catalogue = breedCatalogue(deps.readStore);
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);
    const tags = ['breeds'];

    await registerConditionalGet(instance);

    const list = async (request: FastifyRequest, reply: FastifyReply, query: BreedListQuery) => {
      const lang = requestedLanguage(request);
      const answer = await catalogue.page(
        {
          species_id: query.species_id,
          breedGroups: commaList(query.breed_groups),
          excludeBreedGroups: commaList(query.exclude_breed_groups),
          q: query.q,
          venomCode: query.venom_code,
          extinct: queryBoolean(query.extinct),
        },
        { order: normaliseOrder(query.order), page: query.page, limit: query.limit, lang },
      );
      setPaginationHeaders(reply, answer.total, query.page, query.limit);
      reply.header('Content-Language', answer.language);
      addVary(reply, 'Accept-Language');
      if (queryBoolean(query.attach_image)) {
        // Each breed with its reference image (the Image, as the caller may see it; null when none).
        const breeds = JSON.parse(answer.body.toString('utf8')) as (Breed & { reference_image_id: string | null })[];
        const ids = breeds.flatMap((breed) => (breed.reference_image_id ? [breed.reference_image_id] : []));
        const images = await views.embedded(request, ids, { accountId: accountOf(request).id, language: ServedLanguage.of(request) });
        return breeds.map((breed) => {
          const image = breed.reference_image_id ? images.get(breed.reference_image_id) : undefined;
          return { ...breed, image: image && image.url !== null ? image : null };
        });
      }
      reply.header('ETag', answer.etag);
      if (ifNoneMatchHits(request, answer.etag)) return reply.code(304).send();
      // The page's bytes are cached, and so are their compressed forms: a big page is compressed
      // once per snapshot, not per request (the compress plugin leaves an encoded body alone).
      const encoding = answer.body.length >= COMPRESS_FROM_BYTES ? acceptedEncoding(request) : undefined;
      addVary(reply, 'Accept-Encoding');
      if (!encoding) return sendJson(reply, answer.body);
      reply.header('Content-Encoding', encoding);
      return sendJson(reply, encodedBody(answer, encoding));
    };

    app.get(
      '/breeds',
      {
        schema: {
          tags,
          summary: 'List breeds (large page: limit up to 1000, default 1000; extinct breeds only with extinct=true)',
          querystring: ListBreedsQuery,
          response: { 200: Type.Array(Breed), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => list(request, reply, request.query),
    );

    app.get(
      '/breeds/search',
      {
        schema: {
          tags,
          summary: 'Search breeds (paging style A, default limit 10)',
          querystring: SearchBreedsQuery,
          response: {
            200: Type.Array(
              Type.Intersect([
                Breed,
                Type.Object({ image: Type.Optional(Type.Union([ImageSchema, Type.Null()], { description: 'with attach_image: the reference image, null when none' })) }),
              ]),
            ),
            ...errors(),
          },
        },
        config: { paged: true },
      },
      async (request, reply) => list(request, reply, request.query),
    );

    app.get(
      '/breeds/:id',
      { schema: { tags, summary: 'One breed', params: BreedIdParams, querystring: BreedReadQuery, response: { 200: Breed, ...errors(404) } } },
      async (request, reply) => {
        const entry = await catalogue.get(request.params.id);
        if (!entry) throw new DomainError('not_found', `breed '${request.params.id}' not found`);
        const lang = requestedLanguage(request);
        reply.header('Content-Language', entry.resources[lang].language);
        addVary(reply, 'Accept-Language');
        return sendJson(reply, entry.json[lang]);
      },
    );

    app.get(
      '/breeds/:id/colours',
      {
        schema: {
          tags,
          summary: 'Colour and pattern variants of a breed: its own, then those valid for its whole species',
          params: BreedIdParams,
          response: { 200: Type.Array(Colour), ...errors(404) },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const entry = await catalogue.get(request.params.id);
        if (!entry) throw new DomainError('not_found', `breed '${request.params.id}' not found`);
        const colours = deps.readStore.collection<ColourDoc>(REFERENCE_COLLECTIONS.colours);
        const own = await colours.find({ breed_id: entry.doc.id }, { sort: { seq: 1, _id: 1 } });
        const species = await colours.find({ breed_id: null, species_id: entry.doc.species_id }, { sort: { name: 1, _id: 1 } });
        const all = [...own, ...species].map(toColour);
        setPaginationHeaders(reply, all.length, 0, Math.max(all.length, 1));
        return all;
      },
    );
  };

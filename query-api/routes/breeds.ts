import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BreedIdParams, BreedReadQuery, BreedWithImage, Colour, ListBreedsQuery, SearchBreedsQuery } from '../../contracts/breeds.ts';
import { imageViews } from '../../http/image-views.ts';
import { ServedLanguage } from '../language.ts';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { normaliseOrder } from '../../contracts/paging.ts';
import { REFERENCE_COLLECTIONS, type ColourDoc } from '../../contracts/reference-read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { commaList, setPaginationHeaders } from '../../http/paging.ts';
import { answerOf, breedCatalogue, encodedBody, withDerived, type BreedListAnswer } from '../breed-catalogue.ts';
import { publicBaseUrl } from '../../http/public-url.ts';
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

/** Which breeds get `image`: those with a reference image, every breed (null when none), or none. */
type Attach = 'present' | 'every' | 'none';
const attachOf = (value: string | undefined, byDefault: Attach): Attach => {
  const asked = queryBoolean(value);
  return asked === undefined ? byDefault : asked ? 'every' : 'none';
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
    readsDependOn(instance, ['public-images']);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const catalogue = breedCatalogue(deps.readStore);
    const views = imageViews(deps.readStore, deps.images?.publicBaseUrl);
    const tags = ['breeds'];

    await registerConditionalGet(instance);

    /**
     * The breeds of an answer with their reference images embedded as `image`: the Image as anyone
     * sees a public image (one read of the images for the whole page), built once per answer and
     * base url (the answer lives until the breeds' version moves, which a change of reference, or of
     * the reference image, does). `every`: also `image: null` on breeds without one.
     */
    const withImages = async (request: FastifyRequest, answer: BreedListAnswer, attach: Attach): Promise<BreedListAnswer> => {
      if (attach === 'none' || (attach === 'present' && answer.references.every((id) => id === null))) return answer;
      const language = ServedLanguage.of(request);
      const key = `${attach}\u0000${publicBaseUrl(request, deps.images?.publicBaseUrl)}`;
      return withDerived(answer, key, async () => {
        const ids = answer.references.filter((id): id is string => id !== null);
        const images = await views.embedded(request, ids, { accountId: null, language });
        let keep = true;
        const parsed = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown> | Record<string, unknown>[];
        const breeds = Array.isArray(parsed) ? parsed : [parsed];
        const embedded = breeds.map((breed, index) => {
          const id = answer.references[index];
          const found = id ? images.get(id) : undefined;
          const image = found && found.url !== null ? found : null;
          // The images read model may not show it yet (it follows its own projection): build again next time.
          if (id && !image) keep = false;
          return image === null && attach === 'present' ? breed : { ...breed, image };
        });
        const body = Buffer.from(JSON.stringify(Array.isArray(parsed) ? embedded : embedded[0]));
        return { answer: answerOf(body, answer.total, answer.language), keep };
      });
    };

    const list = async (request: FastifyRequest, reply: FastifyReply, query: BreedListQuery, defaultAttach: Attach) => {
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
      const served = await withImages(request, answer, attachOf(query.attach_image, defaultAttach));
      return sendAnswer(request, reply, served);
    };

    /** Sends an answer: its ETag (304 when the client has it), and the body compressed once per answer. */
    const sendAnswer = (request: FastifyRequest, reply: FastifyReply, answer: BreedListAnswer) => {
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
          response: { 200: Type.Array(BreedWithImage), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => list(request, reply, request.query, 'present'),
    );

    app.get(
      '/breeds/search',
      {
        schema: {
          tags,
          summary: 'Search breeds (paging style A, default limit 10)',
          querystring: SearchBreedsQuery,
          response: { 200: Type.Array(BreedWithImage), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => list(request, reply, request.query, 'none'),
    );

    app.get(
      '/breeds/:id',
      { schema: { tags, summary: 'One breed, with its reference image', params: BreedIdParams, querystring: BreedReadQuery, response: { 200: BreedWithImage, ...errors(404) } } },
      async (request, reply) => {
        const entry = await catalogue.get(request.params.id);
        if (!entry) throw new DomainError('not_found', `breed '${request.params.id}' not found`);
        const lang = requestedLanguage(request);
        const language = entry.resources[lang].language;
        reply.header('Content-Language', language);
        addVary(reply, 'Accept-Language');
        const attach = attachOf(request.query.attach_image, 'present');
        if (attach === 'none' || (attach === 'present' && entry.doc.resource.reference_image_id === null)) return sendJson(reply, entry.json[lang]);
        // The entry's answer in this language, from which the embedded one is derived (and kept with the entry).
        const base = await withDerived(entry, `json\u0000${lang}`, async () => ({
          answer: { ...answerOf(entry.json[lang], 1, language), references: [entry.doc.resource.reference_image_id] },
          keep: true,
        }));
        return sendJson(reply, (await withImages(request, base, attach)).body);
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

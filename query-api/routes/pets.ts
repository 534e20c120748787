import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ListPetsQuery, Pet, PetIdParams, PetMedia, petMediaResource, petResource } from '../../contracts/pets.ts';
import { errors } from '../../contracts/common.ts';
import { Collections, type PetDoc, type PetMediaDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { commaList, pageStyleA } from '../../http/paging.ts';
import type { Filter } from '../../infrastructure/read-store/port.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

const byCreation = (a: PetMediaDoc, b: PetMediaDoc) => a.order_key.localeCompare(b.order_key);

export const petQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const pets = () => deps.readStore.collection<PetDoc>(Collections.pets);
    const media = () => deps.readStore.collection<PetMediaDoc>(Collections.petMedia);

    const mediaOf = async (petIds: string[]): Promise<Map<string, PetMediaDoc[]>> => {
      const grouped = new Map<string, PetMediaDoc[]>(petIds.map((id) => [id, []]));
      if (petIds.length === 0) return grouped;
      for (const doc of (await media().find({ pet_id: { $in: petIds } })).sort(byCreation)) grouped.get(doc.pet_id)?.push(doc);
      return grouped;
    };
    const toPet = (doc: PetDoc, items: PetMediaDoc[]) =>
      petResource(doc.id, doc, items.map((item) => petMediaResource(item, doc.id)), { created_at: doc.created_at, updated_at: doc.updated_at });

    /** The caller's pet: 404 when there is none (after catching up), 403 when it is another account's. */
    const ownedPet = async (petId: string, accountId: string): Promise<PetDoc> => {
      const doc = await findFresh(deps, () => pets().get(petId));
      if (!doc) throw new DomainError('not_found', 'pet not found');
      if (doc.account_id !== accountId) throw new DomainError('forbidden', 'this pet belongs to another account');
      return doc;
    };

    app.get(
      '/pets',
      {
        schema: {
          tags: ['pets'],
          summary: 'List your pets (paging style A, oldest first by default)',
          querystring: ListPetsQuery,
          response: { 200: Type.Array(Pet), ...errors() },
        },
        config: { feature: 'pets', paged: true },
      },
      async (request, reply) => {
        const account = accountOf(request);
        const query = request.query;
        const filter: Filter = { account_id: account.id };
        if (query.breed_id) filter.breed_id = query.breed_id;
        if (query.sub_id) filter.sub_id = query.sub_id;
        if (query.species_id) filter.species_id = query.species_id;
        const include = commaList(query.breed_groups);
        const exclude = commaList(query.exclude_breed_groups);
        if (include.length > 0 && exclude.length > 0) filter.$and = [{ breed_group_lc: { $in: include } }, { breed_group_lc: { $nin: exclude } }];
        else if (include.length > 0) filter.breed_group_lc = { $in: include };
        else if (exclude.length > 0) filter.breed_group_lc = { $nin: exclude };
        const docs = await pageStyleA(reply, pets(), filter, query, { sortField: 'created_at', defaultOrder: 'ASC' });
        const grouped = await mediaOf(docs.map((doc) => doc.id));
        return docs.map((doc) => toPet(doc, grouped.get(doc.id) ?? []));
      },
    );

    app.get(
      '/pets/:petId',
      {
        schema: {
          tags: ['pets'],
          summary: 'One of your pets, with its media records',
          params: PetIdParams,
          response: { 200: Pet, ...errors(404) },
        },
        config: { feature: 'pets' },
      },
      async (request) => {
        const doc = await ownedPet(request.params.petId, accountOf(request).id);
        return toPet(doc, (await mediaOf([doc.id])).get(doc.id) ?? []);
      },
    );

    app.get(
      '/pets/:petId/images',
      {
        schema: {
          tags: ['pets'],
          summary: "Your pet's media records (photos, videos, portraits), oldest first",
          params: PetIdParams,
          response: { 200: Type.Array(PetMedia), ...errors(404) },
        },
        config: { feature: 'pets' },
      },
      async (request) => {
        const doc = await ownedPet(request.params.petId, accountOf(request).id);
        return ((await mediaOf([doc.id])).get(doc.id) ?? []).map((item) => petMediaResource(item, doc.id));
      },
    );
  };

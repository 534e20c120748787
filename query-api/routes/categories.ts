import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Category, ListCategoriesQuery } from '../../contracts/categories.ts';
import { errors } from '../../contracts/common.ts';
import { REFERENCE_COLLECTIONS, type CategoryDoc } from '../../contracts/reference-read-models.ts';
import { pageStyleA } from '../../http/paging.ts';
import type { QueryApiDeps } from '../deps.ts';
import { registerConditionalGet } from '../../http/conditional.ts';
import { readsDependOn } from '../../http/consistency.ts';

/** Image categories (paging style A, ordered by numeric id); English names only. */
export const categoryQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    // Categories: reference data, which no account's request writes.
    readsDependOn(instance, []);
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    await registerConditionalGet(instance);
    app.get(
      '/categories',
      {
        schema: {
          tags: ['categories'],
          summary: 'List image categories (paging style A, default limit 100)',
          querystring: ListCategoriesQuery,
          response: { 200: Type.Array(Category), ...errors() },
        },
        config: { paged: true },
      },
      async (request, reply) => {
        const query = request.query;
        const docs = await pageStyleA(
          reply,
          deps.readStore.collection<CategoryDoc>(REFERENCE_COLLECTIONS.categories),
          query.species_id ? { species_id: query.species_id } : {},
          query,
          { sortField: 'num', defaultOrder: 'ASC' },
        );
        reply.header('Content-Language', 'en');
        return docs.map((doc) => ({ id: doc.id, name: doc.name, species_id: doc.species_id }));
      },
    );
  };

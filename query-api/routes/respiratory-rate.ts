import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { RespiratoryRateParams, RespiratoryRateResult, respiratoryRateResource } from '../../contracts/respiratory-rate.ts';
import { Collections, type RespiratoryRateDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/** GET /v1/pets/{petId}/respiratory-rate/{resultId}: one reading, as far as it has got. */
export const respiratoryRateQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/pets/:petId/respiratory-rate/:resultId',
      {
        schema: {
          tags: ['pets'],
          summary: 'A respiratory-rate reading (pending, processing, completed or failed)',
          params: RespiratoryRateParams,
          response: { 200: RespiratoryRateResult, ...errors(404) },
        },
        config: { feature: 'respiratory_rate' },
      },
      async (request) => {
        const { petId, resultId } = request.params;
        const doc = await findFresh(deps, () => deps.readStore.collection<RespiratoryRateDoc>(Collections.respiratoryRates).get(resultId));
        if (!doc || doc.pet_id !== petId) throw new DomainError('not_found', 'respiratory-rate result not found');
        if (doc.account_id !== accountOf(request).id) throw new DomainError('forbidden', 'this result belongs to another account');
        return respiratoryRateResource(doc);
      },
    );
  };

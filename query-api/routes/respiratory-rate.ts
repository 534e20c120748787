import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errors } from '../../contracts/common.ts';
import { RespiratoryRateParams, RespiratoryRateResult, respiratoryRateResource } from '../../contracts/respiratory-rate.ts';
import { Collections, type PetDoc, type RespiratoryRateDoc } from '../../contracts/read-models.ts';
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
        // The pet first: another account's pet is 403 whatever the result id; a removed pet's results are gone with it.
        const pet = await findFresh(deps, () => deps.readStore.collection<PetDoc>(Collections.pets).get(petId));
        if (!pet) throw new DomainError('not_found', 'pet not found');
        if (pet.account_id !== accountOf(request).id) throw new DomainError('forbidden', 'this pet belongs to another account');
        const doc = await findFresh(deps, () => deps.readStore.collection<RespiratoryRateDoc>(Collections.respiratoryRates).get(resultId));
        if (!doc || doc.pet_id !== petId) throw new DomainError('not_found', 'respiratory-rate result not found');
        return respiratoryRateResource(doc);
      },
    );
  };

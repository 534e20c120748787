import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CaloriesQuery, CaloriesResult } from '../../contracts/calculators.ts';
import { errors } from '../../contracts/common.ts';
import { Collections, type BreedDoc, type PetDoc } from '../../contracts/read-models.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  breedIdealWeightKg,
  calorieNeeds,
  lifeStageFor,
  speciesOfId,
  type CalorieSpecies,
  type LifeStage,
} from '../../domain/pet-analyses/calories.ts';
import { petAgeMonthsAt } from '../../domain/pets/rules.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

/**
 * GET /v1/calculators/calories (feature `calculators`): RER and daily energy need from a weight
 * (given, the pet's estimated weight, or the middle of its breed's range), the species and the life
 * stage (given, or from the pet's age). No usable weight → 422 weight_required.
 */
export const calculatorQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/calculators/calories',
      {
        schema: {
          tags: ['calculators'],
          summary: 'Daily calorie needs (RER = 70 × kg^0.75 × life-stage factor)',
          querystring: CaloriesQuery,
          response: { 200: CaloriesResult, ...errors(404, 422) },
        },
        config: { feature: 'calculators' },
      },
      async (request) => {
        const account = accountOf(request);
        const query = request.query;
        const reasons: string[] = [];

        let pet: PetDoc | null = null;
        if (query.pet_id) {
          pet = await findFresh(deps, () => deps.readStore.collection<PetDoc>(Collections.pets).get(query.pet_id as string));
          if (!pet) throw new DomainError('not_found', 'pet not found');
          if (pet.account_id !== account.id) throw new DomainError('forbidden', 'this pet belongs to another account');
        }
        const breedId = query.breed_id ?? pet?.breed_id ?? null;
        let breed: BreedDoc | null = null;
        if (breedId) {
          breed = await findFresh(deps, () => deps.readStore.collection<BreedDoc>(Collections.breeds).get(breedId));
          if (!breed && query.breed_id) throw new DomainError('not_found', `breed '${breedId}' not found`);
        }

        const speciesId = query.species_id ?? pet?.species_id ?? breed?.species_id ?? null;
        if (query.species_id && breed && breed.species_id !== query.species_id) {
          throw new DomainError('validation_failed', `species_id '${query.species_id}' does not match the breed's species '${breed.species_id}'`, {
            details: [`querystring.species_id '${query.species_id}' does not match the breed's species '${breed.species_id}'`],
          });
        }
        const species: CalorieSpecies | null = speciesOfId(speciesId);

        let weightKg: number;
        let weightSource: CaloriesResult['weight_source'];
        if (query.weight_kg !== undefined) {
          weightKg = query.weight_kg;
          weightSource = 'weight_kg';
          reasons.push(`weight ${weightKg} kg as given`);
        } else if (pet?.estimated_weight_kg) {
          weightKg = pet.estimated_weight_kg;
          weightSource = 'pet_estimated_weight';
          reasons.push(`weight ${weightKg} kg from the pet's weight estimate of ${pet.estimated_weight_timestamp ?? 'an earlier run'}`);
        } else {
          const ideal = breed ? breedIdealWeightKg(breed.resource.weight_kg) : null;
          if (ideal === null) {
            throw new DomainError(
              'weight_required',
              breed
                ? `breed '${breed.id}' has no weight range: give weight_kg`
                : 'no usable weight: give weight_kg, a breed_id, or a pet_id of a pet with a weight estimate or a breed',
            );
          }
          weightKg = ideal;
          weightSource = 'breed_ideal_weight';
          reasons.push(`weight ${weightKg} kg: the middle of the ${breed?.name} range of ${breed?.resource.weight_kg} kg`);
        }

        let lifeStage: LifeStage | null = query.life_stage ?? null;
        let lifeStageSource: CaloriesResult['life_stage_source'] = lifeStage ? 'life_stage' : null;
        if (!lifeStage && species === 'horse') {
          lifeStageSource = 'species';
        } else if (!lifeStage && species) {
          const ageMonths = pet ? petAgeMonthsAt({ ...pet, breed_group: null }, new Date().toISOString()) : null;
          lifeStage = lifeStageFor(species, ageMonths);
          lifeStageSource = ageMonths === null ? 'assumed_adult' : 'pet_age';
          reasons.push(ageMonths === null ? 'life stage assumed adult (no age known)' : `life stage ${lifeStage} from the pet's age of ${ageMonths} months`);
        }
        if (!species) reasons.push('species unknown (no pet, breed or species_id): resting energy only, the life-stage factor depends on the species');

        let result;
        try {
          result = calorieNeeds(weightKg, species, lifeStage);
        } catch (error) {
          if (error instanceof RangeError) {
            throw new DomainError('validation_failed', error.message, { details: [`querystring.life_stage: ${error.message}`] });
          }
          throw error;
        }
        if (species && result.factor !== null) reasons.push(`life-stage factor ${result.factor} for a ${species}`);
        return {
          pet_id: pet?.id ?? null,
          breed_id: breed?.id ?? null,
          species_id: speciesId,
          weight_kg: result.weight_kg,
          weight_source: weightSource,
          life_stage: result.life_stage,
          life_stage_source: lifeStageSource,
          rer_kcal_per_day: result.rer_kcal_per_day,
          factor: result.factor,
          der_kcal_per_day: result.der_kcal_per_day,
          formula: result.formula,
          reasons: reasons.join('; '),
        };
      },
    );
  };

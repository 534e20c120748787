import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CARE_TIPS_CACHE_COLLECTION, CareTipsQuery, CareTipsResult, type CareTipsCacheDoc } from '../../contracts/care-tips.ts';
import { errors, queryBoolean } from '../../contracts/common.ts';
import { PetIdParams } from '../../contracts/pets.ts';
import { Collections, type BreedDoc, type CareTipDoc, type PetDoc, type PetMediaDoc } from '../../contracts/read-models.ts';
import { parseRange } from '../../domain/pet-analyses/calories.ts';
import { careTips, type CareTipInputs } from '../../domain/pet-analyses/care-tips.ts';
import { climateOf, hemisphereOf, seasonOf } from '../../domain/pet-analyses/climate.ts';
import { DomainError } from '../../domain/errors.ts';
import { monthsBetween, petAgeMonthsAt } from '../../domain/pets/rules.ts';
import { accountOf } from '../../http/auth.ts';
import { findFresh, type QueryApiDeps } from '../deps.ts';

const sha256 = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);

/**
 * GET /v1/pets/{petId}/care-tips (alias /health-tips), feature `care_tips`: the breed-standard
 * tips of the pet's primary breed blended with personalised tips (domain/pet-analyses/care-tips.ts).
 *
 * Cached per pet per request signature: the signature is a hash of the query options and of every
 * input the tips depend on — the pet's profile and analysis fields, the ids of its usable photos,
 * the breed's seeded tips and weight range, and the season (from the country and today's month).
 * A cached result is answered as it was (same items, same `generated_at`); new photos, a photo
 * rejected by review, a changed profile or a new analysis result change the signature, so the
 * next request computes afresh and the pet's stale entries are deleted. The cache lives in the
 * read store (`pet_care_tips_cache`), which every query-API replica shares.
 */
export const petCareTipsQueryRoutes =
  (deps: QueryApiDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    const cache = () => deps.readStore.collection<CareTipsCacheDoc>(CARE_TIPS_CACHE_COLLECTION);
    await cache().createIndex('pet_id');

    const handler = async (petId: string, accountId: string, query: CareTipsQuery): Promise<CareTipsResult> => {
      const pet = await findFresh(deps, () => deps.readStore.collection<PetDoc>(Collections.pets).get(petId));
      if (!pet) throw new DomainError('not_found', 'pet not found');
      if (pet.account_id !== accountId) throw new DomainError('forbidden', 'this pet belongs to another account');
      const photos = (await deps.readStore.collection<PetMediaDoc>(Collections.petMedia).find({ pet_id: petId }))
        .filter((media) => media.kind === 'photo' && media.review_status !== 'rejected')
        .map((media) => media._id)
        .sort();
      if (photos.length === 0) throw new DomainError('pet_has_no_photos', 'this pet has no usable photos: add some with POST /v1/pets/{petId}/images first');

      const now = new Date().toISOString();
      const breedDoc = pet.breed_id ? await deps.readStore.collection<BreedDoc>(Collections.breeds).get(pet.breed_id) : null;
      const seeded = pet.breed_id
        ? (await deps.readStore.collection<CareTipDoc>(Collections.careTips).find({ breed_id: pet.breed_id }, { sort: { seq: 1 } })).map((tip) => ({
            id: tip.id,
            category: tip.category,
            title: tip.title,
            description: tip.description,
            sources: tip.sources,
          }))
        : [];
      const recordedAge = petAgeMonthsAt({ ...pet, breed_group: null }, now);
      const inputs: CareTipInputs = {
        pet_id: petId,
        species_id: pet.species_id,
        breed: breedDoc ? { id: breedDoc.id, name: breedDoc.name, weight_kg: parseRange(breedDoc.resource.weight_kg) } : null,
        // Whole months: the tips read the age by month, so the signature changes once a month at most.
        age_months:
          recordedAge !== null
            ? Math.floor(recordedAge)
            : pet.estimated_age_months !== null
              ? // the estimate as it was then, carried forward to today
                Math.floor(pet.estimated_age_months + (pet.estimated_age_timestamp ? monthsBetween(pet.estimated_age_timestamp, now) : 0))
              : null,
        age_source: recordedAge !== null ? 'record' : pet.estimated_age_months !== null ? 'estimate' : null,
        body_condition_score: pet.body_condition_score,
        muscle_wasting_risk: pet.muscle_wasting_risk,
        weight_kg: pet.estimated_weight_kg,
        country: pet.country,
        today: now,
      };
      const hemisphere = hemisphereOf(pet.country);
      const month = new Date(now).getUTCMonth() + 1;
      // Everything the result depends on except the clock; the season stands for "today".
      const stateHash = sha256({
        ...inputs,
        today: null,
        season: hemisphere ? seasonOf(month, hemisphere) : null,
        climate: climateOf(pet.country),
        photos,
        seeded,
      });
      const options = { include_seeded: queryBoolean(query.include_seeded) ?? true, include_sources: queryBoolean(query.include_sources) ?? false, lang: query.lang ?? null };
      const signature = sha256({ stateHash, options });
      const id = `${petId}:${signature}`;

      const hit = await cache().get(id);
      if (hit) return hit.result;

      const result: CareTipsResult = { items: careTips(inputs, seeded, options), generated_at: now };
      // A cache write, not a projection: ordered by the clock so a later entry always replaces an earlier one.
      const position = BigInt(Date.now()) * 1000n;
      await cache().upsert({ _id: id, pet_id: petId, state_hash: stateHash, signature, result }, position);
      for (const stale of await cache().find({ pet_id: petId, state_hash: { $ne: stateHash } })) await cache().delete(stale._id, position);
      return result;
    };

    for (const path of ['/pets/:petId/care-tips', '/pets/:petId/health-tips']) {
      app.get(
        path,
        {
          schema: {
            tags: ['pets'],
            summary: 'Care tips for your pet: its breed’s standard tips and personalised ones (life stage, body condition, muscle, weight, season, climate)',
            params: PetIdParams,
            querystring: CareTipsQuery,
            response: { 200: CareTipsResult, ...errors(404) },
          },
          config: { feature: 'care_tips' },
        },
        async (request) => handler(request.params.petId, accountOf(request).id, request.query),
      );
    }
  };

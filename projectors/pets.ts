import { Collections, emptyPetAnalysis, type PetDoc, type PetMediaDoc } from '../contracts/read-models.ts';
import { petEvents, type PetMedia, type PetProfile } from '../domain/pets/pet.ts';
import { defineProjection } from './projection.ts';
import { petAnalysisEvents, petFieldsOf } from '../domain/pet-analyses/analysis.ts';
import { bcsCorrectionFields, bcsReviewEvents } from '../domain/pet-analyses/bcs-review.ts';

const profileFields = (profile: Partial<PetProfile>): Partial<PetDoc> => {
  const { breed_group, ...rest } = profile;
  return breed_group === undefined ? rest : { ...rest, breed_group_lc: (breed_group ?? '').toLowerCase() };
};

const mediaDoc = (media: PetMedia, petId: string, accountId: string, position: bigint, index: number): PetMediaDoc => ({
  ...media,
  order_key: `${position.toString().padStart(24, '0')}-${String(index).padStart(3, '0')}`,
  _id: media.media_id,
  pet_id: petId,
  account_id: accountId,
  upload_error: false,
  portrait_style_id: media.portrait_style_id ?? null,
});

/**
 * Pets and their media records. A removed pet and its media are deleted (tombstones keep a
 * replay from bringing them back). Analysis fields start null; the analyses fill them.
 */
export const petsProjection = defineProjection({
  name: 'pets',
  collections: [Collections.pets, Collections.petMedia],
  // petanalysis-: analysis results (PetAnalysed) set the pet's analysis fields.
  // bcsreview-: a vet's corrected score (BcsReviewed) replaces the pet's score.
  streams: [petEvents, petAnalysisEvents, bcsReviewEvents],
  async setup(store) {
    // GET /pets: the account's pets oldest first (ties by _id); the media of a page of pets by pet_id.
    await store.collection(Collections.pets).createIndex({ account_id: 1, created_at: 1, _id: 1 });
    await store.collection(Collections.petMedia).createIndex('pet_id');
  },
  async apply(event, store) {
    if (event.type === 'PetAnalysed') {
      const analysed = event.data;
      const pets = store.collection<PetDoc>(Collections.pets);
      const doc = await pets.get(analysed.pet_id);
      if (doc) await pets.upsert({ ...doc, ...petFieldsOf(analysed) }, event.position);
      return;
    }
    if (event.type === 'BcsReviewRequested') return;
    if (event.type === 'BcsReviewed') {
      // Only while the reviewed score is still the pet's latest (a newer analysis wins).
      const reviewed = event.data;
      const fields = bcsCorrectionFields(reviewed);
      const pets = store.collection<PetDoc>(Collections.pets);
      const doc = fields ? await pets.get(reviewed.pet_id) : null;
      const newer = doc?.body_condition_score_timestamp != null && doc.body_condition_score_timestamp > reviewed.requested_at;
      if (doc && fields && !newer) await pets.upsert({ ...doc, ...fields }, event.position);
      return;
    }
    const pets = store.collection<PetDoc>(Collections.pets);
    const media = store.collection<PetMediaDoc>(Collections.petMedia);
    switch (event.type) {
      case 'PetRegistered': {
        const { profile } = event.data;
        await pets.upsert(
          {
            ...emptyPetAnalysis(),
            ...(profileFields(profile) as Omit<PetDoc, 'breed_group_lc'>),
            _id: event.data.pet_id,
            id: event.data.pet_id,
            account_id: event.data.account_id,
            breed_group_lc: (profile.breed_group ?? '').toLowerCase(),
            created_at: event.data.registered_at,
            updated_at: event.data.registered_at,
          },
          event.position,
        );
        return;
      }
      case 'PetUpdated': {
        const doc = await pets.get(event.data.pet_id);
        if (doc) await pets.upsert({ ...doc, ...profileFields(event.data.changes), updated_at: event.data.updated_at }, event.position);
        return;
      }
      case 'PetRemoved': {
        await pets.delete(event.data.pet_id, event.position);
        for (const item of await media.find({ pet_id: event.data.pet_id })) await media.delete(item._id, event.position);
        return;
      }
      case 'PetPhotosAdded':
        for (const [index, item] of event.data.media.entries()) {
          await media.upsert(mediaDoc(item, event.data.pet_id, event.data.account_id, event.position, index), event.position);
        }
        return;
      case 'PetVideoAdded':
      case 'PetPortraitAdded':
        await media.upsert(mediaDoc(event.data.media, event.data.pet_id, event.data.account_id, event.position, 0), event.position);
        return;
      case 'PetMediaReviewed': {
        const doc = await media.get(event.data.media_id);
        if (doc) await media.upsert({ ...doc, review_status: event.data.review_status }, event.position);
        return;
      }
    }
  },
});

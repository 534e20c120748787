import { REFERENCE_COLLECTIONS, type BreedDoc, type CareTipDoc, type ColourDoc } from '../contracts/reference-read-models.ts';
import { changeOf, referenceEvents } from '../domain/reference-data/record.ts';
import { imageEvents } from '../domain/images/image.ts';
import { isFrom } from '../infrastructure/event-store/recorded.ts';
import { breedColourId, careTipId } from '../domain/reference-data/vocabulary.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { Breed, SpeciesColour } from '../reference-data/schemas.ts';
import { toBreedResource } from './breed-resource.ts';
import { defineProjection } from './projection.ts';
import { applyImageToBreeds, CANDIDATE_ORDER, referenceImageOf } from './breed-reference-images.ts';
import { Collections } from '../contracts/read-models.ts';
import { markBreedsChanged, seedBreedsVersion } from './breeds-version.ts';

const breedDoc = (breed: Breed): BreedDoc => ({
  _id: breed.id,
  id: breed.id,
  species_id: breed.species_id,
  name: breed.name,
  name_lc: breed.name.toLowerCase(),
  breed_group_lc: breed.breed_group.toLowerCase(),
  venom_code_list: breed.venom_codes.map((venom) => venom.code.toUpperCase()),
  extinct: breed.extinct,
  resource: toBreedResource(breed),
  translations: breed.translations,
});

/** Replaces the documents of one breed in a collection: writes `docs`, deletes the breed's others. */
const replaceBreedDocs = async <T extends ColourDoc | CareTipDoc>(
  store: ReadStore,
  collection: string,
  breedId: string,
  docs: T[],
  position: bigint,
): Promise<void> => {
  const target = store.collection<T>(collection);
  const keep = new Set(docs.map((doc) => doc._id));
  for (const existing of await target.find({ breed_id: breedId })) {
    if (!keep.has(existing._id)) await target.delete(existing._id, position);
  }
  for (const doc of docs) await target.upsert(doc, position);
};

/**
 * Breeds (the Breed resource ready to serve), their colour variants together with the variants
 * valid for a whole species, and the breed-standard care tips seeded from the breed records.
 */
export const breedsProjection = defineProjection({
  name: 'breeds',
  collections: [REFERENCE_COLLECTIONS.breeds, REFERENCE_COLLECTIONS.breedsVersion, REFERENCE_COLLECTIONS.colours, REFERENCE_COLLECTIONS.careTips, Collections.breedImages, Collections.breedReferenceCandidates],
  // image-: each breed's reference_image_id (breed-reference-images.ts)
  streams: [referenceEvents('breed'), referenceEvents('colour'), imageEvents],
  async setup(store) {
    await store.collection(REFERENCE_COLLECTIONS.breeds).createIndex('species_id');
    await store.collection(REFERENCE_COLLECTIONS.colours).createIndex('breed_id');
    await store.collection(REFERENCE_COLLECTIONS.careTips).createIndex('breed_id');
    await store.collection(Collections.breedImages).createIndex('breed_ids');
    await store.collection(Collections.breedReferenceCandidates).createIndex({ ...CANDIDATE_ORDER });
    await seedBreedsVersion(store);
  },
  async apply(event, store) {
    if (isFrom(imageEvents, event)) return applyImageToBreeds(event, store);
    const change = changeOf(event.type);
    const position = event.position;
    if (change === null) return;
    if (event.type.startsWith('Breed')) {
      const id = event.data.id;
      if (change === 'withdrawn') {
        await store.collection(REFERENCE_COLLECTIONS.breeds).delete(id, position);
        await markBreedsChanged(store, position);
        await replaceBreedDocs<ColourDoc>(store, REFERENCE_COLLECTIONS.colours, id, [], position);
        await replaceBreedDocs<CareTipDoc>(store, REFERENCE_COLLECTIONS.careTips, id, [], position);
        return;
      }
      const breed = (event.data as { record: unknown }).record as Breed;
      const doc = breedDoc(breed);
      doc.resource.reference_image_id = await referenceImageOf(store, breed.id, breed.species_id);
      await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).upsert(doc, position);
      await markBreedsChanged(store, position);
      await replaceBreedDocs<ColourDoc>(
        store,
        REFERENCE_COLLECTIONS.colours,
        breed.id,
        breed.colours.map((colour, index) => ({
          _id: breedColourId(breed.id, colour.code),
          id: breedColourId(breed.id, colour.code),
          species_id: breed.species_id,
          breed_id: breed.id,
          ...colour,
          seq: index,
        })),
        position,
      );
      await replaceBreedDocs<CareTipDoc>(
        store,
        REFERENCE_COLLECTIONS.careTips,
        breed.id,
        breed.care_tips.map((tip, index) => ({
          _id: careTipId(breed.id, index + 1),
          id: careTipId(breed.id, index + 1),
          breed_id: breed.id,
          species_id: breed.species_id,
          category: tip.category,
          title: tip.title,
          description: tip.description,
          tip_type: 'breed_standard',
          sources: [],
          seq: index,
        })),
        position,
      );
      return;
    }
    if (event.type.startsWith('Colour')) {
      const colours = store.collection<ColourDoc>(REFERENCE_COLLECTIONS.colours);
      if (change === 'withdrawn') {
        await colours.delete(event.data.id, position);
        return;
      }
      const colour = (event.data as { record: unknown }).record as SpeciesColour;
      await colours.upsert({ _id: colour.id, ...colour, seq: 0 }, position);
    }
  },
});

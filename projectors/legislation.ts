import { REFERENCE_COLLECTIONS, type CountryDoc, type LegislationDoc } from '../contracts/reference-read-models.ts';
import { changeOf, referenceEvents } from '../domain/reference-data/record.ts';
import { speciesOfAnimalType } from '../domain/reference-data/vocabulary.ts';
import type { Country, Law } from '../reference-data/schemas.ts';
import { defineProjection } from './projection.ts';

/** Countries with breed legislation, and their laws (national and of their jurisdictions). */
export const legislationProjection = defineProjection({
  name: 'legislation',
  collections: [REFERENCE_COLLECTIONS.countries, REFERENCE_COLLECTIONS.legislation],
  streams: [referenceEvents('country'), referenceEvents('legislation')],
  async setup(store) {
    await store.collection(REFERENCE_COLLECTIONS.legislation).createIndex('country_iso_code');
    await store.collection(REFERENCE_COLLECTIONS.legislation).createIndex('banned_breed_ids');
  },
  async apply(event, store) {
    const change = changeOf(event.type);
    if (change === null) return;
    const isCountry = event.type.startsWith('Country');
    const collection = store.collection<CountryDoc | LegislationDoc>(isCountry ? REFERENCE_COLLECTIONS.countries : REFERENCE_COLLECTIONS.legislation);
    if (change === 'withdrawn') {
      await collection.delete(event.data.id, event.position);
      return;
    }
    const record = (event.data as { record: unknown }).record;
    if (isCountry) {
      const country = record as Country;
      await collection.upsert({ _id: country.iso_code, ...country }, event.position);
      return;
    }
    const law = record as Law;
    await collection.upsert(
      {
        _id: String(law.id),
        ...law,
        species_id: speciesOfAnimalType(law.animal_type),
        banned_breed_ids: [...new Set(law.banned_breeds.map((banned) => banned.breed_id))],
        jurisdiction_name_lc: law.jurisdiction ? law.jurisdiction.name.toLowerCase() : null,
      },
      event.position,
    );
  },
});

import { REFERENCE_COLLECTIONS, type CountryDoc, type LegislationDoc } from '../contracts/reference-read-models.ts';
import { changeOf, type ReferenceEvent } from '../domain/reference-data/record.ts';
import { speciesOfAnimalType } from '../domain/reference-data/vocabulary.ts';
import type { Country, Law } from '../reference-data/schemas.ts';
import { defineProjection } from './projection.ts';

/** Countries with breed legislation, and their laws (national and of their jurisdictions). */
export const legislationProjection = defineProjection({
  name: 'legislation',
  collections: [REFERENCE_COLLECTIONS.countries, REFERENCE_COLLECTIONS.legislation],
  streamPrefixes: ['country-', 'legislation-'],
  async setup(store) {
    await store.collection(REFERENCE_COLLECTIONS.legislation).createIndex('country_iso_code');
    await store.collection(REFERENCE_COLLECTIONS.legislation).createIndex('banned_breed_ids');
  },
  async apply(recorded, store) {
    const event = recorded as unknown as ReferenceEvent<'Country' | 'Legislation'>;
    const change = changeOf(event.type);
    if (change === null) return;
    const isCountry = event.type.startsWith('Country');
    const collection = store.collection<CountryDoc | LegislationDoc>(isCountry ? REFERENCE_COLLECTIONS.countries : REFERENCE_COLLECTIONS.legislation);
    if (change === 'withdrawn') {
      await collection.delete(event.data.id, recorded.position);
      return;
    }
    const record = (event.data as { record: unknown }).record;
    if (isCountry) {
      const country = record as Country;
      await collection.upsert({ _id: country.iso_code, ...country }, recorded.position);
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
      recorded.position,
    );
  },
});

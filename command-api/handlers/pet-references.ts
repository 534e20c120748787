import countries from 'i18n-iso-countries';
import type { ProfileInput, ProfileReferences } from '../../domain/pets/decide.ts';
import { changeOf, referenceStream } from '../../domain/reference-data/record.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';

/**
 * What a pet profile refers to outside its own stream, looked up on the command side from the
 * event log itself (never a read model): the breed's own stream (`breed-<id>`, its latest
 * published or revised record unless withdrawn) and the ISO 3166-1 alpha-2 list.
 */
export const breedOf = async (store: EventStore, breedId: string): Promise<ProfileReferences['breed']> => {
  const events = await store.readStream(referenceStream('breed', breedId));
  let record: Record<string, unknown> | null = null;
  for (const event of events) {
    const change = changeOf(event.type);
    if (change === 'withdrawn') record = null;
    else if (change) record = (event.data as { record: Record<string, unknown> }).record;
  }
  if (!record) return 'unknown';
  return {
    id: breedId,
    species_id: String(record.species_id),
    breed_group: typeof record.breed_group === 'string' && record.breed_group !== '' ? record.breed_group : null,
  };
};

export const isCountryCode = (code: string): boolean => /^[A-Za-z]{2}$/.test(code) && countries.isValid(code.toUpperCase());

export const referencesOf = async (store: EventStore, input: ProfileInput): Promise<ProfileReferences> => ({
  ...(input.breed_id ? { breed: await breedOf(store, input.breed_id) } : {}),
  ...(input.country ? { countryKnown: isCountryCode(input.country) } : {}),
});

/**
 * Breeds as an import names them — a folder name or a manifest's `breed_ids` entry — matched to
 * the reference breeds by id, by name or by one of their alternative names, case and punctuation
 * aside (`Maine_Coon`, `maine-coon`, `mcoo` and `Maine Coon` are the same). A name that matches no
 * breed, or several of different ids (and no `species_id` to choose), matches none: reported, not
 * guessed.
 */
export type BreedRef = { id: string; name: string; species_id: string; alt_names?: string };

export type BreedMatch = { id: string; species_id: string } | { problem: 'unknown' | 'ambiguous'; candidates: string[] };

/** Lower-case letters and digits, one space between words. */
export const breedKey = (text: string): string => text.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, ' ').trim();

export type BreedMatcher = { match: (text: string, speciesId?: string | null) => BreedMatch; size: number };

export const breedMatcher = (breeds: readonly BreedRef[]): BreedMatcher => {
  const byId = new Map<string, BreedRef>();
  const byName = new Map<string, BreedRef[]>();
  const add = (key: string, breed: BreedRef) => {
    if (!key) return;
    const list = byName.get(key) ?? [];
    if (!list.some((b) => b.id === breed.id)) list.push(breed);
    byName.set(key, list);
  };
  for (const breed of breeds) {
    byId.set(breed.id.toLowerCase(), breed);
    add(breedKey(breed.name), breed);
    for (const alt of (breed.alt_names ?? '').split(',')) add(breedKey(alt), breed);
  }
  return {
    size: breeds.length,
    match(text, speciesId) {
      const ofSpecies = (list: BreedRef[]) => (speciesId ? list.filter((breed) => breed.species_id === speciesId) : list);
      const exact = byId.get(text.trim().toLowerCase());
      if (exact && ofSpecies([exact]).length === 1) return { id: exact.id, species_id: exact.species_id };
      const named = ofSpecies(byName.get(breedKey(text)) ?? []);
      if (named.length === 1) return { id: named[0].id, species_id: named[0].species_id };
      if (named.length > 1) return { problem: 'ambiguous', candidates: named.map((breed) => breed.id) };
      return { problem: 'unknown', candidates: [] };
    },
  };
};

import { describe, expect, it } from 'vitest';
import type { Breed } from '../contracts/breeds.ts';
import { REFERENCE_COLLECTIONS, REFERENCE_PROJECTIONS, type BreedDoc } from '../contracts/reference-read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { breedCatalogue, type BreedPaging } from './breed-catalogue.ts';

const breed = (id: string, name: string, group = 'working'): BreedDoc => ({
  _id: id,
  id,
  species_id: '2',
  name,
  name_lc: name.toLowerCase(),
  breed_group_lc: group,
  venom_code_list: [],
  extinct: false,
  resource: { id, name } as unknown as Breed,
  translations: { fr: { name: `${name} (fr)`, description: '' } },
});

const names = (body: Buffer): string[] => (JSON.parse(body.toString('utf8')) as { name: string }[]).map((item) => item.name);
const byName: BreedPaging = { order: 'ASC', page: 0, limit: 2, lang: 'en' };
const all = { breedGroups: [], excludeBreedGroups: [] };

describe('breed catalogue pages', () => {
  it('answers a page in name order with its total and language, and the same page again from the same bytes', async () => {
    const store = embeddedReadStore();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    for (const [position, doc] of [breed('b', 'Beagle'), breed('a', 'Akita'), breed('c', 'Collie', 'herding')].entries()) await breeds.upsert(doc, BigInt(position + 1));
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 3n);
    const catalogue = breedCatalogue(store);

    const first = await catalogue.page(all, byName);
    expect(names(first.body)).toEqual(['Akita', 'Beagle']);
    expect(first.total).toBe(3);
    expect(first.language).toBe('en');
    expect((await catalogue.page(all, byName)).body).toBe(first.body);
    expect(names((await catalogue.page(all, { ...byName, order: 'DESC' })).body)).toEqual(['Collie', 'Beagle']);
    expect(names((await catalogue.page({ ...all, excludeBreedGroups: ['herding'] }, { ...byName, page: 1 })).body)).toEqual([]);
    const french = await catalogue.page(all, { ...byName, lang: 'fr' });
    expect(french.language).toBe('fr');
    expect(names(french.body)).toEqual(['Akita (fr)', 'Beagle (fr)']);
  });

  it('builds pages anew once the breeds projection has moved on', async () => {
    const store = embeddedReadStore();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    await breeds.upsert(breed('a', 'Akita'), 1n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 1n);
    const catalogue = breedCatalogue(store);
    expect(names((await catalogue.page(all, byName)).body)).toEqual(['Akita']);

    await breeds.upsert(breed('b', 'Basenji'), 2n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 2n);
    const after = await catalogue.page(all, byName);
    expect(names(after.body)).toEqual(['Akita', 'Basenji']);
    expect(after.total).toBe(2);
  });

  it('keeps a bounded number of answers however many different pages are asked for', async () => {
    const store = embeddedReadStore();
    await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).upsert(breed('a', 'Akita'), 1n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 1n);
    const catalogue = breedCatalogue(store);
    const first = await catalogue.page(all, byName);
    for (let page = 1; page <= 2500; page++) expect((await catalogue.page(all, { ...byName, page })).body.toString()).toBe('[]');
    // The first answer was evicted by the 2,000-entry bound: it is built again (equal bytes, a new buffer).
    const again = await catalogue.page(all, byName);
    expect(again.body).not.toBe(first.body);
    expect(again.body.equals(first.body)).toBe(true);
  });

  it('draws random pages anew each time', async () => {
    const store = embeddedReadStore();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    for (let i = 0; i < 30; i++) await breeds.upsert(breed(`b${i}`, `Breed ${String(i).padStart(2, '0')}`), BigInt(i + 1));
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 30n);
    const catalogue = breedCatalogue(store);
    const draws = new Set<string>();
    for (let i = 0; i < 10; i++) draws.add(names((await catalogue.page(all, { ...byName, order: 'RANDOM', limit: 3 })).body).join());
    expect(draws.size).toBeGreaterThan(1);
  });

  it('marks each breed with the language it is served in, translates temperament and origin when given, and names every language of a mixed page', async () => {
    const store = embeddedReadStore();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    const english = (id: string, name: string) => ({ ...breed(id, name), resource: { id, name, temperament: 'Calm', origin: 'Japan' } as unknown as Breed });
    await breeds.upsert({ ...english('a', 'Akita'), translations: { de: { name: 'Akita-Inu', description: 'd', temperament: 'Ruhig', origin: 'Japan (de)' } } }, 1n);
    await breeds.upsert({ ...english('b', 'Beagle'), translations: { de: { name: 'Beagle (de)', description: 'd' } } }, 2n);
    await breeds.upsert({ ...english('c', 'Collie'), translations: {} }, 3n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 3n);
    const catalogue = breedCatalogue(store);

    const items = (body: Buffer) => JSON.parse(body.toString('utf8')) as { name: string; temperament: string; origin: string; language: string }[];
    const german = await catalogue.page(all, { ...byName, limit: 3, lang: 'de' });
    expect(items(german.body)).toEqual([
      { id: 'a', name: 'Akita-Inu', temperament: 'Ruhig', origin: 'Japan (de)', description: 'd', language: 'de' },
      { id: 'b', name: 'Beagle (de)', temperament: 'Calm', origin: 'Japan', description: 'd', language: 'de' },
      { id: 'c', name: 'Collie', temperament: 'Calm', origin: 'Japan', language: 'en' },
    ]);
    expect(german.language).toBe('de, en');
    expect((await catalogue.page(all, { ...byName, limit: 2, lang: 'de' })).language).toBe('de');
    expect((await catalogue.page(all, { ...byName, page: 2, limit: 1, lang: 'de' })).language).toBe('en');
    expect((await catalogue.page(all, { ...byName, page: 5, lang: 'fr' })).language).toBe('fr');
    expect((await catalogue.get('c'))?.resources.fr.language).toBe('en');
    expect(german.etag).not.toBe((await catalogue.page(all, { ...byName, limit: 3, lang: 'en' })).etag);
  });
});

describe('breed catalogue on a store that knows its checkpoints without asking', () => {
  /** The embedded store with a counted getCheckpoint and a knownCheckpoint, like the MongoDB adapter's. */
  const counting = () => {
    const store = embeddedReadStore();
    const known = new Map<string, bigint>();
    let lookups = 0;
    const wrapped = {
      ...store,
      collection: store.collection.bind(store),
      async getCheckpoint(name: string) {
        lookups++;
        const position = await store.getCheckpoint(name);
        if (position !== null) known.set(name, position);
        return position;
      },
      knownCheckpoint: (name: string) => known.get(name) ?? null,
      async setCheckpoint(name: string, position: bigint) {
        await store.setCheckpoint(name, position);
        known.set(name, position);
      },
    };
    return { store: wrapped, inner: store, lookups: () => lookups };
  };

  it('serves a snapshot without a lookup within the recheck interval, and asks again after it', async () => {
    const { store, lookups } = counting();
    await store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds).upsert(breed('a', 'Akita'), 1n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 1n);
    let now = 1_000;
    const catalogue = breedCatalogue(store, { recheckMs: 100, now: () => now });
    await catalogue.page(all, byName);
    expect(lookups()).toBe(1);
    now += 99;
    for (let i = 0; i < 5; i++) await catalogue.page(all, byName);
    expect(lookups()).toBe(1);
    now += 1;
    await catalogue.page(all, byName);
    expect(lookups()).toBe(2);
  });

  it('replaces the snapshot at once when the process knows the projection moved (read-your-writes)', async () => {
    const { store, lookups } = counting();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    await breeds.upsert(breed('a', 'Akita'), 1n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 1n);
    const now = 1_000;
    const catalogue = breedCatalogue(store, { recheckMs: 60_000, now: () => now });
    expect(names((await catalogue.page(all, byName)).body)).toEqual(['Akita']);

    await breeds.upsert(breed('b', 'Basenji'), 2n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 2n);
    expect(names((await catalogue.page(all, byName)).body)).toEqual(['Akita', 'Basenji']);
    expect(lookups()).toBe(2);
  });

  it('sees a change it was not told about once the interval has passed', async () => {
    const { store, inner } = counting();
    const breeds = store.collection<BreedDoc>(REFERENCE_COLLECTIONS.breeds);
    await breeds.upsert(breed('a', 'Akita'), 1n);
    await store.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 1n);
    let now = 1_000;
    const catalogue = breedCatalogue(store, { recheckMs: 100, now: () => now });
    await catalogue.page(all, byName);
    // Another process's projection moved the checkpoint: this one has not seen it.
    await breeds.upsert(breed('b', 'Basenji'), 2n);
    await inner.setCheckpoint(REFERENCE_PROJECTIONS.breeds, 2n);
    expect(names((await catalogue.page(all, byName)).body)).toEqual(['Akita']);
    now += 100;
    expect(names((await catalogue.page(all, byName)).body)).toEqual(['Akita', 'Basenji']);
  });
});

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
});

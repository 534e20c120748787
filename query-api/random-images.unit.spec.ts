import { describe, expect, it } from 'vitest';
import type { ImageSearchEntryDoc } from '../contracts/read-models.ts';
import { drawsFromEntries, entryFilterOf } from './random-images.ts';

const entry = (breedIds: string[]): ImageSearchEntryDoc => ({
  _id: 'x',
  key: 'all',
  image_id: 'i',
  random: 0.5,
  species_id: '1',
  format: 'jpg',
  has_breeds: breedIds.length > 0,
  breed_ids: breedIds,
  category_ids: [],
});

describe('random search: what the search entries serve', () => {
  it('draws from the entries for their filters and the paging/rendering parameters only', () => {
    expect(drawsFromEntries({ limit: 5, page: 0, order: 'RANDOM', include_breeds: 'true', size: 'med', breed_ids: 'abys', mime_types: 'jpg' })).toBe(true);
    expect(drawsFromEntries({ limit: 5, sub_id: 'u1' })).toBe(false);
    expect(drawsFromEntries({ limit: 5, breed_groups: 'hound' })).toBe(false);
    // A filter the entries do not carry (one added later, such as a licence) draws the old way.
    expect(drawsFromEntries({ limit: 5, license: 'cc-by' })).toBe(false);
    expect(drawsFromEntries({ limit: 5, license: undefined })).toBe(true);
  });

  it('narrows by the breeds asked for, else the species, else all, and filters the rest on the entry', () => {
    expect(entryFilterOf({}).filter).toEqual({ key: 'all' });
    expect(entryFilterOf({ species_id: '2' }).filter).toEqual({ key: 'species:2' });
    expect(entryFilterOf({ breed_ids: 'ABYS' }).filter).toEqual({ key: 'breed:abys' });
    expect(entryFilterOf({ breed_ids: 'abys,beng', breed_id: 'abys', species_id: '1', has_breeds: '1', mime_types: 'jpeg,image/png', category_ids: '5' }).filter).toEqual({
      $and: [{ key: { $in: ['breed:abys', 'breed:beng'] } }, { species_id: '1' }, { has_breeds: true }, { category_ids: { $in: ['5'] } }, { format: { $in: ['jpg', 'png'] } }],
    });
  });

  it('counts an image once per breed asked for that it holds (its entries), at least once', () => {
    const { copiesOf } = entryFilterOf({ breed_ids: 'abys,beng,siam' });
    expect(copiesOf(entry(['abys', 'beng']))).toBe(2);
    expect(copiesOf(entry(['abys', 'pers']))).toBe(1);
    expect(entryFilterOf({ breed_ids: 'abys' }).copiesOf(entry(['abys', 'beng']))).toBe(1);
  });
});

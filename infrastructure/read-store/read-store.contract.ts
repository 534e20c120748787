import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Doc, ReadStore } from './port.ts';

type Pet = Doc & { name: string; age: number | null; tags: string[]; owner: { id: string }; born: string };

/** The contract every read-store adapter must pass; the factory gives a fresh store. */
export const readStoreContract = (adapterName: string, makeStore: () => Promise<ReadStore>): void => {
  describe(`read store contract: ${adapterName}`, () => {
    let store: ReadStore;
    let name: string;
    beforeEach(async () => {
      store = await makeStore();
      name = `pets_${randomUUID().slice(0, 8)}`;
      const pets = store.collection<Pet>(name);
      await pets.createIndex('owner.id');
      const rows: [string, string, number | null, string[], string, string][] = [
        ['a', 'Alba', 3, ['calm'], 'o1', '2024-01-01T00:00:00.000Z'],
        ['b', 'Bruno', 7, ['loud', 'calm'], 'o1', '2024-02-01T00:00:00.000Z'],
        ['c', 'cleo', 1, [], 'o2', '2024-03-01T00:00:00.000Z'],
        ['d', 'Duke', null, ['loud'], 'o2', '2024-04-01T00:00:00.000Z'],
        ['e', 'Ember', 12, ['calm'], 'o3', '2024-05-01T00:00:00.000Z'],
      ];
      let position = 1n;
      for (const [_id, petName, age, tags, owner, born] of rows) {
        await pets.upsert({ _id, name: petName, age, tags, owner: { id: owner }, born }, position++);
      }
    });
    afterEach(async () => {
      await store.close();
    });

    const ids = (docs: Doc[]) => docs.map((doc) => doc._id);

    it('gets by id and answers null for a missing one', async () => {
      const pets = store.collection<Pet>(name);
      expect(await pets.get('a')).toMatchObject({ _id: 'a', name: 'Alba', owner: { id: 'o1' } });
      expect(await pets.get('zz')).toBeNull();
    });

    it('filters by equality, $in, ranges, $ne, $exists, $regex and dotted paths', async () => {
      const pets = store.collection<Pet>(name);
      const sort = { _id: 1 } as const;
      expect(ids(await pets.find({ 'owner.id': 'o1' }, { sort }))).toEqual(['a', 'b']);
      expect(ids(await pets.find({ 'owner.id': { $in: ['o2', 'o3'] } }, { sort }))).toEqual(['c', 'd', 'e']);
      expect(ids(await pets.find({ age: { $gte: 3, $lt: 12 } }, { sort }))).toEqual(['a', 'b']);
      expect(ids(await pets.find({ age: { $gt: 6 } }, { sort }))).toEqual(['b', 'e']);
      expect(ids(await pets.find({ born: { $gte: '2024-03-01T00:00:00.000Z' } }, { sort }))).toEqual(['c', 'd', 'e']);
      expect(ids(await pets.find({ 'owner.id': { $ne: 'o1' } }, { sort }))).toEqual(['c', 'd', 'e']);
      expect(ids(await pets.find({ tags: 'loud' }, { sort }))).toEqual(['b', 'd']);
      expect(ids(await pets.find({ tags: { $in: ['calm'] } }, { sort }))).toEqual(['a', 'b', 'e']);
      expect(ids(await pets.find({ name: { $regex: 'L', $options: 'i' } }, { sort }))).toEqual(['a', 'c']);
      expect(ids(await pets.find({ $or: [{ _id: 'a' }, { age: 12 }] }, { sort }))).toEqual(['a', 'e']);
      expect(ids(await pets.find({ missing: { $exists: false }, 'owner.id': 'o3' }, { sort }))).toEqual(['e']);
    });

    it('sorts on one or more fields, skips and limits, counts', async () => {
      const pets = store.collection<Pet>(name);
      expect(ids(await pets.find({}, { sort: { born: -1 } }))).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect(ids(await pets.find({}, { sort: { 'owner.id': 1, born: -1 } }))).toEqual(['b', 'a', 'd', 'c', 'e']);
      expect(ids(await pets.find({}, { sort: { _id: 1 }, skip: 1, limit: 2 }))).toEqual(['b', 'c']);
      expect(ids(await pets.find({}, { sort: { _id: 1 }, skip: 10 }))).toEqual([]);
      expect(await pets.count()).toBe(5);
      expect(await pets.count({ 'owner.id': 'o2' })).toBe(2);
    });

    it('samples at random from the matching documents', async () => {
      const pets = store.collection<Pet>(name);
      const sample = await pets.sample({ 'owner.id': { $in: ['o1', 'o2'] } }, 3);
      expect(sample.length).toBe(3);
      expect(sample.every((doc) => ['a', 'b', 'c', 'd'].includes(doc._id))).toBe(true);
      expect(new Set(ids(sample)).size).toBe(3);
      expect((await pets.sample({ 'owner.id': 'o3' }, 10)).length).toBe(1);
    });

    it('ignores writes whose position the document has already seen', async () => {
      const pets = store.collection<Pet>(name);
      const doc = (await pets.get('a')) as Pet;
      expect(await pets.upsert({ ...doc, name: 'Stale' }, 1n)).toBe(false);
      expect((await pets.get('a'))?.name).toBe('Alba');
      expect(await pets.upsert({ ...doc, name: 'Fresh' }, 100n)).toBe(true);
      expect((await pets.get('a'))?.name).toBe('Fresh');
    });

    it('keeps a tombstone so a replayed older write does not resurrect a deleted document', async () => {
      const pets = store.collection<Pet>(name);
      const doc = (await pets.get('b')) as Pet;
      expect(await pets.delete('b', 50n)).toBe(true);
      expect(await pets.get('b')).toBeNull();
      expect(await pets.upsert(doc, 2n)).toBe(false);
      expect(await pets.get('b')).toBeNull();
      expect(await pets.count({ 'owner.id': 'o1' })).toBe(1);
      expect(await pets.delete('b', 60n)).toBe(false);
    });

    it('stores checkpoints and waits for them', async () => {
      const a = `cp_${randomUUID()}`;
      const b = `cp_${randomUUID()}`;
      expect(await store.getCheckpoint(a)).toBeNull();
      await store.setCheckpoint(a, 10n);
      expect(await store.getCheckpoint(a)).toBe(10n);
      expect(await store.waitForCheckpoints([a], 10n, 10)).toBe(true);
      expect(await store.waitForCheckpoints([a, b], 5n, 30)).toBe(false);
      const waiting = store.waitForCheckpoints([a, b], 12n, 3000);
      await store.setCheckpoint(a, 12n);
      await store.setCheckpoint(b, 15n);
      expect(await waiting).toBe(true);
    });

    it('drops collections and checkpoints', async () => {
      await store.setCheckpoint(`drop_${name}`, 3n);
      await store.drop([name], [`drop_${name}`]);
      expect(await store.collection(name).count()).toBe(0);
      expect(await store.getCheckpoint(`drop_${name}`)).toBeNull();
    });
  });
};

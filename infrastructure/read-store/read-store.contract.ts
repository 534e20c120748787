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

    it('gets many by id in one call, leaving out missing and deleted ones', async () => {
      const pets = store.collection<Pet>(name);
      await pets.delete('c', 100n);
      const found = await pets.getMany(['a', 'c', 'zz', 'e', 'a']);
      expect([...found.keys()].sort()).toEqual(['a', 'e']);
      expect(found.get('a')).toMatchObject({ _id: 'a', name: 'Alba', owner: { id: 'o1' } });
      expect(found.get('e')).toMatchObject({ _id: 'e', name: 'Ember' });
      expect(Object.keys(found.get('a') as Pet).some((key) => key.startsWith('_') && key !== '_id')).toBe(false);
      expect((await pets.getMany([])).size).toBe(0);
    });

    it('reads documents and tombstones with the position that last wrote each, leaving out ids never written', async () => {
      const pets = store.collection<Pet>(name);
      await pets.upsert({ _id: 'b', name: 'Bruno II', age: 8, tags: [], owner: { id: 'o1' }, born: '2024-02-01T00:00:00.000Z' }, 40n);
      await pets.delete('c', 41n);
      const stored = await pets.getStored(['a', 'b', 'c', 'zz', 'a']);
      expect([...stored.keys()].sort()).toEqual(['a', 'b', 'c']);
      expect(stored.get('a')).toEqual({ doc: expect.objectContaining({ _id: 'a', name: 'Alba' }), position: 1n });
      expect(stored.get('b')?.position).toBe(40n);
      expect(stored.get('b')?.doc).not.toHaveProperty('_position');
      expect(stored.get('c')).toEqual({ doc: null, position: 41n });
      expect((await pets.getStored([])).size).toBe(0);
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
      // A count asked again after a write, a delete and a drop answers the collection as it is then.
      await pets.upsert({ _id: 'f', name: 'Fig', age: 2, tags: [], owner: { id: 'o2' }, born: '2024-06-01T00:00:00.000Z' }, 10n);
      expect(await pets.count({ 'owner.id': 'o2' })).toBe(3);
      await pets.delete('c', 11n);
      expect(await pets.count({ 'owner.id': 'o2' })).toBe(2);
      await store.drop([name], []);
      expect(await pets.count({ 'owner.id': 'o2' })).toBe(0);
    });

    it('answers a shared count (maxAgeMs) no older than the projection position the caller must see', async () => {
      const pets = store.collection<Pet>(name);
      const shared = { maxAgeMs: 60_000, projection: `projection_${name}` };
      expect(await pets.count({}, shared)).toBe(5);
      await pets.upsert({ _id: 'f', name: 'Fig', age: 2, tags: [], owner: { id: 'o1' }, born: '2024-06-01T00:00:00.000Z' }, 10n);
      await store.setCheckpoint(shared.projection, 10n);
      expect(await pets.count({}, { ...shared, atLeast: 10n })).toBe(6);
      expect(await pets.count()).toBe(6);
    });

    it('pages a sorted $or, at the top or inside $and, without repeating a document both sides match', async () => {
      const pets = store.collection<Pet>(name);
      const either = { $or: [{ 'owner.id': 'o1' }, { age: { $gte: 7 } }] };
      expect(ids(await pets.find(either, { sort: { born: -1, _id: -1 }, limit: 10 }))).toEqual(['e', 'b', 'a']);
      expect(ids(await pets.find(either, { sort: { born: -1, _id: -1 }, skip: 1, limit: 2 }))).toEqual(['b', 'a']);
      expect(ids(await pets.find({ $and: [either, { tags: 'calm' }, { name: { $ne: 'Ember' } }] }, { sort: { born: 1 }, limit: 5 }))).toEqual(['a', 'b']);
      expect(await pets.count(either)).toBe(3);
    });

    it('explains whether a query is served by a declared index or scans and sorts in memory', async () => {
      const pets = store.collection<Pet>(name);
      await pets.createIndex({ 'owner.id': 1, born: 1, _id: 1 });
      const page = { sort: { born: -1, _id: -1 } as const, limit: 2 };
      expect(ids(await pets.find({ 'owner.id': 'o1' }, page))).toEqual(['b', 'a']);
      const served = await pets.explain!({ 'owner.id': 'o1' }, page);
      expect(served, served.detail).toMatchObject({ scans: false, sortsInMemory: false });
      const unindexed = await pets.explain!({ name: 'Alba' }, page);
      expect(unindexed.scans, unindexed.detail).toBe(true);
      const unsorted = await pets.explain!({ 'owner.id': 'o1' }, { sort: { age: 1 }, limit: 2 });
      expect(unsorted.sortsInMemory, unsorted.detail).toBe(true);
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

    it('bulk-writes upserts and deletes with the same guard as single writes', async () => {
      const pets = store.collection<Pet>(name);
      const a = (await pets.get('a')) as Pet;
      const b = (await pets.get('b')) as Pet;
      const c = (await pets.get('c')) as Pet;
      await pets.bulkWrite([
        { type: 'upsert', doc: { ...a, name: 'Stale' }, position: 1n },
        { type: 'upsert', doc: { ...b, name: 'Bruno II' }, position: 10n },
        { type: 'delete', id: 'c', position: 11n },
        { type: 'upsert', doc: { _id: 'f', name: 'Fox', age: 2, tags: [], owner: { id: 'o3' }, born: '2024-06-01T00:00:00.000Z' }, position: 12n },
        { type: 'delete', id: 'd', position: 2n },
        { type: 'delete', id: 'nobody', position: 13n },
      ]);
      expect((await pets.get('a'))?.name).toBe('Alba');
      expect((await pets.get('b'))?.name).toBe('Bruno II');
      expect(await pets.get('c')).toBeNull();
      expect((await pets.get('d'))?.name).toBe('Duke');
      expect(await pets.get('nobody')).toBeNull();
      expect(ids(await pets.find({ 'owner.id': 'o3' }, { sort: { _id: 1 } }))).toEqual(['e', 'f']);
      expect(await pets.count()).toBe(5);

      // The tombstones left by the bulk deletes block older upserts, single or bulk.
      await pets.bulkWrite([
        { type: 'upsert', doc: c, position: 5n },
        { type: 'upsert', doc: { ...a, name: 'Alba II' }, position: 20n },
      ]);
      expect(await pets.upsert({ _id: 'nobody', name: 'Ghost', age: null, tags: [], owner: { id: 'o9' }, born: '2024-01-01T00:00:00.000Z' }, 3n)).toBe(false);
      expect(await pets.get('c')).toBeNull();
      expect(await pets.get('nobody')).toBeNull();
      expect((await pets.get('a'))?.name).toBe('Alba II');
      await pets.bulkWrite([{ type: 'upsert', doc: c, position: 30n }]);
      expect((await pets.get('c'))?.name).toBe('cleo');
      await pets.bulkWrite([]);
    });

    it('bulk-writes new documents ahead of existing ones without losing the guard on either', async () => {
      const pets = store.collection<Pet>(name);
      const pet = (id: string, petName: string): Pet => ({ _id: id, name: petName, age: 1, tags: [], owner: { id: 'o7' }, born: '2024-01-01T00:00:00.000Z' });
      await pets.upsert(pet('old1', 'Kept'), 50n);
      await pets.upsert(pet('old2', 'Before'), 50n);
      await pets.bulkWrite([
        { type: 'upsert', doc: pet('new1', 'One'), position: 60n },
        { type: 'upsert', doc: pet('old1', 'Stale'), position: 40n },
        { type: 'upsert', doc: pet('new2', 'Two'), position: 61n },
        { type: 'upsert', doc: pet('old2', 'After'), position: 62n },
      ]);
      expect(ids(await pets.find({ 'owner.id': 'o7' }, { sort: { _id: 1 } }))).toEqual(['new1', 'new2', 'old1', 'old2']);
      expect((await pets.get('old1'))?.name).toBe('Kept');
      expect((await pets.get('old2'))?.name).toBe('After');
      // The same batch again (a redelivery): nothing changes, nothing fails.
      await pets.bulkWrite([
        { type: 'upsert', doc: pet('new1', 'One again'), position: 60n },
        { type: 'upsert', doc: pet('new2', 'Two again'), position: 61n },
      ]);
      expect((await pets.get('new1'))?.name).toBe('One');
      expect((await pets.get('new2'))?.name).toBe('Two');
    });

    it('bulk-writes a large batch in one call', async () => {
      const pets = store.collection<Pet>(name);
      const ops = Array.from({ length: 300 }, (_, i) => ({
        type: 'upsert' as const,
        doc: { _id: `bulk${i}`, name: `Pet ${i}`, age: i, tags: [], owner: { id: 'o8' }, born: '2024-01-01T00:00:00.000Z' },
        position: BigInt(100 + i),
      }));
      await pets.bulkWrite([...ops, { type: 'delete', id: 'a', position: 99n }]);
      expect(await pets.count({ 'owner.id': 'o8' })).toBe(300);
      expect(await pets.get('a')).toBeNull();
      await pets.bulkWrite(ops.map((op, i) => (i % 2 === 0 ? { ...op, doc: { ...op.doc, name: 'Newer' }, position: op.position + 1000n } : op)));
      expect(await pets.count({ name: 'Newer' })).toBe(150);
    });

    it('lets many readers wait for checkpoints at once, each resolving or timing out', async () => {
      const a = `cp_${randomUUID()}`;
      const b = `cp_${randomUUID()}`;
      const waiting = Array.from({ length: 50 }, (_, i) => store.waitForCheckpoints([a, b], BigInt(1 + (i % 5)), 5000));
      const tooFar = Array.from({ length: 10 }, () => store.waitForCheckpoints([a, b], 100n, 150));
      const instant = store.waitForCheckpoints([a], 1n, 0);
      expect(await instant).toBe(false);
      await Promise.all([store.setCheckpoint(a, 5n), store.setCheckpoint(b, 7n)]);
      expect(await Promise.all(waiting)).toEqual(waiting.map(() => true));
      const started = Date.now();
      expect(await Promise.all(tooFar)).toEqual(tooFar.map(() => false));
      expect(Date.now() - started).toBeLessThan(2000);
      expect(await store.waitForCheckpoints([a, b], 5n, 0)).toBe(true);
      expect(await store.waitForCheckpoints([a, b], 6n, 0)).toBe(false);
      expect(await store.getCheckpoint(b)).toBe(7n);
      // Checkpoints stored together land even when one of them is behind the stored one.
      const c = `cp_${randomUUID()}`;
      await Promise.all([store.setCheckpoint(a, 6n), store.setCheckpoint(b, 1n), store.setCheckpoint(c, 4n)]);
      expect(await store.getCheckpoint(a)).toBe(6n);
      expect(await store.getCheckpoint(c)).toBe(4n);
      expect(await store.waitForCheckpoints([a, c], 4n, 1000)).toBe(true);
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

    it('stores checkpoints set in many turns while earlier ones are on their way, each call settling once its position is stored', async () => {
      const names = [0, 1, 2].map(() => `cp_${randomUUID()}`);
      const calls: Promise<void>[] = [];
      for (let i = 1; i <= 30; i++) {
        const name = names[i % 3];
        const position = BigInt(i);
        calls.push(store.setCheckpoint(name, position).then(async () => expect((await store.getCheckpoint(name)) ?? -1n).toBeGreaterThanOrEqual(position)));
        if (i % 4 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await Promise.all(calls);
      expect(await Promise.all(names.map((name) => store.getCheckpoint(name)))).toEqual([30n, 28n, 29n]);
    });

    it('drops collections and checkpoints', async () => {
      await store.setCheckpoint(`drop_${name}`, 3n);
      await store.drop([name], [`drop_${name}`]);
      expect(await store.collection(name).count()).toBe(0);
      expect(await store.getCheckpoint(`drop_${name}`)).toBeNull();
    });
  });
};

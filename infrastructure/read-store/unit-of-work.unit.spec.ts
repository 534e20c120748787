import { describe, expect, it, vi } from 'vitest';
import { embeddedReadStore } from './embedded.ts';
import type { Doc } from './port.ts';
import { unitOfWork } from './unit-of-work.ts';

type Pet = Doc & { name: string; owner: string };

const seeded = async () => {
  const store = embeddedReadStore();
  const pets = store.collection<Pet>('pets');
  await pets.createIndex('owner');
  await pets.upsert({ _id: 'a', name: 'Alba', owner: 'o1' }, 1n);
  await pets.upsert({ _id: 'b', name: 'Bruno', owner: 'o1' }, 2n);
  return { store, pets };
};

describe('unit of work', () => {
  it('keeps writes in memory until flush, answering get() from the buffer', async () => {
    const { store, pets } = await seeded();
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    expect(await view.upsert({ _id: 'a', name: 'Alba II', owner: 'o1' }, 10n)).toBe(true);
    expect(await view.upsert({ _id: 'c', name: 'Cleo', owner: 'o2' }, 11n)).toBe(true);
    expect(await view.delete('b', 12n)).toBe(true);
    expect(await view.get('a')).toMatchObject({ name: 'Alba II' });
    expect(await view.get('b')).toBeNull();
    expect(await view.get('c')).toMatchObject({ name: 'Cleo' });
    // Nothing reached the store yet.
    expect((await pets.get('a'))?.name).toBe('Alba');
    expect(await pets.get('b')).not.toBeNull();
    expect(await pets.get('c')).toBeNull();
    await work.flush();
    expect((await pets.get('a'))?.name).toBe('Alba II');
    expect(await pets.get('b')).toBeNull();
    expect((await pets.get('c'))?.name).toBe('Cleo');
    // The tombstone written by the flush still guards against older writes.
    expect(await pets.upsert({ _id: 'b', name: 'Bruno', owner: 'o1' }, 5n)).toBe(false);
  });

  it('answers get() from what getMany() fetched, without asking the store again, until the _id is written', async () => {
    const { store, pets } = await seeded();
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    const target = store.collection<Pet>('pets');
    // The unit of work reads documents with their stored positions (getStored), in one call per getMany.
    const getMany = vi.spyOn(target, 'getStored');
    const get = vi.spyOn(target, 'get');
    const found = await view.getMany(['a', 'zz', 'b']);
    expect([...found.keys()].sort()).toEqual(['a', 'b']);
    expect(getMany).toHaveBeenCalledTimes(1);
    // The store changes behind the unit of work's back: the batch keeps what it read (its own collection).
    await pets.upsert({ _id: 'a', name: 'Changed', owner: 'o1' }, 5n);
    expect((await view.get('a'))?.name).toBe('Alba');
    expect(await view.get('zz')).toBeNull();
    expect(get).not.toHaveBeenCalled();
    // A second getMany asks only for what it has not seen.
    await view.getMany(['a', 'b', 'c']);
    expect(getMany).toHaveBeenLastCalledWith(['c']);
    // A write wins over the fetched copy, before and after the flush.
    await view.upsert({ _id: 'b', name: 'Bruno II', owner: 'o1' }, 30n);
    expect((await view.get('b'))?.name).toBe('Bruno II');
    expect((await view.getMany(['b'])).get('b')?.name).toBe('Bruno II');
    await work.flush();
    expect((await view.get('b'))?.name).toBe('Bruno II');
    await view.delete('zz', 31n);
    expect((await view.getMany(['zz'])).size).toBe(0);
  });

  it('keeps the highest position per _id and ignores writes at or below it, like the guard', async () => {
    const { store, pets } = await seeded();
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    expect(await view.upsert({ _id: 'x', name: 'First', owner: 'o1' }, 20n)).toBe(true);
    expect(await view.upsert({ _id: 'x', name: 'Second', owner: 'o1' }, 21n)).toBe(true);
    expect(await view.upsert({ _id: 'x', name: 'Older', owner: 'o1' }, 19n)).toBe(false);
    expect(await view.upsert({ _id: 'x', name: 'Same', owner: 'o1' }, 21n)).toBe(false);
    expect(await view.delete('x', 21n)).toBe(false);
    expect((await view.get('x'))?.name).toBe('Second');
    expect(await view.delete('x', 22n)).toBe(true);
    expect(await view.upsert({ _id: 'x', name: 'Resurrected', owner: 'o1' }, 22n)).toBe(false);
    expect(await view.get('x')).toBeNull();
    // The store's own guard still applies at flush: an older write than the stored one changes nothing.
    expect(await view.upsert({ _id: 'a', name: 'Stale', owner: 'o1' }, 1n)).toBe(true);
    await work.flush();
    expect((await pets.get('a'))?.name).toBe('Alba');
    expect(await pets.get('x')).toBeNull();
    expect(await pets.upsert({ _id: 'x', name: 'Replayed', owner: 'o1' }, 21n)).toBe(false);
  });

  describe('a replay over documents the store already holds (the runner after a rollback or a restart)', () => {
    type Counter = Doc & { n: number };
    /** The quota projection's fold: read, add one, write at the event's position. */
    const count = async (view: ReturnType<typeof unitOfWork>['store'], position: bigint) => {
      const counters = view.collection<Counter>('counters');
      const doc = await counters.get('c');
      await counters.upsert({ _id: 'c', n: (doc?.n ?? 0) + 1 }, position);
    };

    it('does not fold a replayed event the stored document already reflects into the next one', async () => {
      const store = embeddedReadStore();
      const counters = store.collection<Counter>('counters');
      await count(store, 5n);
      await count(store, 10n);
      const work = unitOfWork(store);
      for (const position of [5n, 10n, 15n]) await count(work.store, position);
      await work.flush();
      expect(await counters.get('c')).toEqual({ _id: 'c', n: 3 });
    });

    it('checks a document written without being read against the store the first time it is read back', async () => {
      const store = embeddedReadStore();
      const counters = store.collection<Counter>('counters');
      await counters.upsert({ _id: 'c', n: 7 }, 10n);
      const work = unitOfWork(store);
      const view = work.store.collection<Counter>('counters');
      expect(await view.upsert({ _id: 'c', n: 1 }, 4n)).toBe(true);
      expect(await view.get('c')).toEqual({ _id: 'c', n: 7 });
      await count(work.store, 15n);
      await work.flush();
      expect(await counters.get('c')).toEqual({ _id: 'c', n: 8 });
    });

    it('does not bring back a deleted document when its creation is replayed', async () => {
      const { store, pets } = await seeded();
      await pets.delete('a', 10n);
      const work = unitOfWork(store);
      const view = work.store.collection<Pet>('pets');
      await view.upsert({ _id: 'a', name: 'Alba', owner: 'o1' }, 1n);
      // A later event renames the pet if it exists (as projections do after a get).
      const doc = await view.get('a');
      if (doc) await view.upsert({ ...doc, name: 'Alba renamed' }, 20n);
      expect((await view.getMany(['a', 'b'])).has('a')).toBe(false);
      await work.flush();
      expect(await pets.get('a')).toBeNull();
    });

    it('drops a write at or below a position the store was seen to hold, as the store would', async () => {
      const { store } = await seeded();
      const work = unitOfWork(store);
      const view = work.store.collection<Pet>('pets');
      expect((await view.getMany(['a', 'b'])).size).toBe(2);
      expect(await view.upsert({ _id: 'b', name: 'Old', owner: 'o1' }, 2n)).toBe(false);
      expect(await view.delete('a', 1n)).toBe(false);
      expect((await view.get('b'))?.name).toBe('Bruno');
      expect(await view.upsert({ _id: 'b', name: 'New', owner: 'o1' }, 3n)).toBe(true);
      expect((await view.get('b'))?.name).toBe('New');
    });

    it('after a flush, knows what it wrote over a known position: answered from memory, older writes dropped', async () => {
      const { store, pets } = await seeded();
      const work = unitOfWork(store);
      const view = work.store.collection<Pet>('pets');
      expect((await view.get('a'))?.name).toBe('Alba');
      await view.upsert({ _id: 'a', name: 'Alba II', owner: 'o1' }, 10n);
      await work.flush();
      const reads = vi.spyOn(pets, 'getStored');
      expect((await view.get('a'))?.name).toBe('Alba II');
      expect(reads).not.toHaveBeenCalled();
      expect(await view.upsert({ _id: 'a', name: 'Replayed', owner: 'o1' }, 7n)).toBe(false);
      expect((await view.get('a'))?.name).toBe('Alba II');
    });
  });

  it('flushes a collection before find, count and sample answer', async () => {
    const { store } = await seeded();
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    await view.upsert({ _id: 'c', name: 'Cleo', owner: 'o1' }, 10n);
    await view.delete('a', 11n);
    expect((await view.find({ owner: 'o1' }, { sort: { _id: 1 } })).map((doc) => doc._id)).toEqual(['b', 'c']);
    await view.upsert({ _id: 'd', name: 'Duke', owner: 'o1' }, 12n);
    expect(await view.count({ owner: 'o1' })).toBe(3);
    await view.upsert({ _id: 'e', name: 'Ember', owner: 'o3' }, 13n);
    expect((await view.sample({ owner: 'o3' }, 5)).map((doc) => doc._id)).toEqual(['e']);
  });

  it('writes each collection with one bulkWrite per flush and merges bulkWrites into the buffer', async () => {
    const { store } = await seeded();
    const other = store.collection('other');
    const petsBulk = vi.spyOn(store.collection('pets'), 'bulkWrite');
    const otherBulk = vi.spyOn(other, 'bulkWrite');
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    for (let i = 0; i < 20; i++) await view.upsert({ _id: `p${i}`, name: `Pet ${i}`, owner: 'o9' }, BigInt(100 + i));
    await work.store.collection('other').bulkWrite([
      { type: 'upsert', doc: { _id: 'z', v: 1 }, position: 5n },
      { type: 'delete', id: 'y', position: 6n },
    ]);
    await work.store.collection('other').bulkWrite([{ type: 'upsert', doc: { _id: 'z', v: 0 }, position: 4n }]);
    expect(await work.store.collection('other').get('z')).toEqual({ _id: 'z', v: 1 });
    await work.flush();
    expect(petsBulk).toHaveBeenCalledTimes(1);
    expect(petsBulk.mock.calls[0][0]).toHaveLength(20);
    expect(otherBulk).toHaveBeenCalledTimes(1);
    expect(await other.get('z')).toEqual({ _id: 'z', v: 1 });
    await work.flush();
    expect(petsBulk).toHaveBeenCalledTimes(1);
  });

  it('puts the writes back when a flush fails, so a second flush writes them', async () => {
    const { store, pets } = await seeded();
    const work = unitOfWork(store);
    const view = work.store.collection<Pet>('pets');
    await view.upsert({ _id: 'a', name: 'Alba II', owner: 'o1' }, 10n);
    const failing = vi.spyOn(pets, 'bulkWrite').mockRejectedValueOnce(new Error('connection lost'));
    await expect(work.flush()).rejects.toThrow('connection lost');
    expect((await view.get('a'))?.name).toBe('Alba II');
    await work.flush();
    expect(failing).toHaveBeenCalledTimes(2);
    expect((await pets.get('a'))?.name).toBe('Alba II');
  });

  it('stores a checkpoint set through the view only after its writes', async () => {
    const { store, pets } = await seeded();
    const work = unitOfWork(store);
    await work.store.collection<Pet>('pets').upsert({ _id: 'c', name: 'Cleo', owner: 'o2' }, 10n);
    await work.store.setCheckpoint('pets', 10n);
    expect(await store.getCheckpoint('pets')).toBe(10n);
    expect((await pets.get('c'))?.name).toBe('Cleo');
    expect(await work.store.waitForCheckpoints(['pets'], 10n, 0)).toBe(true);
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collections, type ImageSearchEntryDoc } from '../contracts/read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { Collection, Filter, FindOptions, ReadStore, WriteOp } from '../infrastructure/read-store/port.ts';
import { imagesProjection } from '../projectors/images.ts';
import { bucketsFor } from '../query-api/fair-sample.ts';
import { drawFromEntries } from '../query-api/random-images.ts';

/**
 * A random search over 100,000 public images reads a few index entries, not the catalogue: on the
 * embedded store with the images projection's indexes, a draw of 100 reads (finds) about 5 buckets
 * of at most cap + 1 entries per image drawn, each served by the (key, random) index (the SQLite
 * plan searches it), and with a breed filter only that breed's entries. Asserts what is read and
 * how, not a time.
 */
const IMAGES = 100_000;
const BREEDS = ['abys', 'beng', 'siam', 'pers'];
let store: ReadStore;
const finds: { filter: Filter | undefined; options: FindOptions; returned: number }[] = [];

const randomOf = (id: string) => createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32;

beforeAll(async () => {
  const inner = embeddedReadStore();
  await imagesProjection.setup?.(inner);
  const entries = inner.collection<ImageSearchEntryDoc>(Collections.imageSearchEntries);
  let ops: WriteOp<ImageSearchEntryDoc>[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const id = `img${i}`;
    // Every fourth image is of one breed (abys: 1 in 16 of the catalogue), a dog every tenth.
    const breed = i % 4 === 0 ? BREEDS[(i / 4) % 4] : null;
    const species = i % 10 === 0 ? '2' : '1';
    const base = { image_id: id, random: randomOf(id), species_id: species, format: i % 7 === 0 ? 'png' : 'jpg', has_breeds: breed !== null, breed_ids: breed ? [breed] : [], category_ids: [] };
    for (const key of ['all', `species:${species}`, ...(breed ? [`breed:${breed}`] : [])]) ops.push({ type: 'upsert', doc: { _id: `${key}|${id}`, key, ...base }, position: BigInt(i + 1) });
    if (ops.length >= 10_000) {
      await entries.bulkWrite(ops);
      ops = [];
    }
  }
  await entries.bulkWrite(ops);
  // Record what the draws read.
  store = Object.assign(Object.create(inner) as ReadStore, {
    collection: <T extends { _id: string }>(name: string) => {
      const target = inner.collection(name) as unknown as Collection<T & Record<string, unknown>>;
      return Object.assign(Object.create(target) as Collection<T & Record<string, unknown>>, {
        find: async (filter?: Filter, options: FindOptions = {}) => {
          const found = await target.find(filter, options);
          finds.push({ filter, options, returned: found.length });
          return found;
        },
      });
    },
  });
}, 120_000);
afterAll(async () => {
  await store?.close();
});

const counter = () => {
  let n = 0;
  return () => {
    n += 1;
    return randomOf(`draw-${n}`);
  };
};

describe('random search at 100,000 images', () => {
  it.each([
    ['the whole catalogue', {}, IMAGES],
    ['one breed', { breed_ids: 'abys' }, IMAGES / 16],
    ['two breeds and a type', { breed_ids: 'abys,beng', mime_types: 'jpg' }, undefined],
    ['a species', { species_id: '2' }, IMAGES / 10],
  ] as const)('draws 100 distinct images of %s reading a few buckets of index entries', async (_name, query, matching) => {
    finds.length = 0;
    const ids = await drawFromEntries(store, query, 100, counter());
    expect(ids).not.toBeNull();
    expect(new Set(ids).size).toBe(100);
    const { cap } = bucketsFor(matching ?? IMAGES);
    // Every read is one bucket of at most cap + 1 entries…
    for (const find of finds) expect(find.options.limit).toBeLessThanOrEqual(cap + 1);
    // …about cap / 8 of them per image drawn (a generous bound), so a few thousand entries in all (about cap × 100 expected), not 100,000.
    expect(finds.length).toBeLessThan(100 * (cap / 8) * 2);
    const read = finds.reduce((sum, find) => sum + find.returned, 0);
    expect(read).toBeLessThan(2 * 100 * cap);
    // Each read is served by the (key, random) index.
    const plan = await store.collection(Collections.imageSearchEntries).explain!(finds[0].filter, finds[0].options);
    expect(plan.scans, plan.detail).toBe(false);
    expect(plan.detail).toMatch(/SEARCH .*USING INDEX/);
    if ((query as { breed_ids?: string }).breed_ids === 'abys') expect(ids!.every((id) => Number(id.slice(3)) % 16 === 0)).toBe(true);
  });
});

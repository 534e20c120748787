import { describe, expect, it } from 'vitest';
import { embeddedReadStore } from './embedded.ts';
import { matches, sortComparator } from './filter.ts';
import type { Doc, Filter } from './port.ts';

/**
 * The SQL the embedded store runs matches exactly what the in-memory matcher (filter.ts) matches,
 * on documents with every shape a field takes (missing, null, numbers, strings, booleans, arrays,
 * sub-documents), through declared fields (compared directly, by their index) and undeclared ones
 * (compared element-wise): every filter below, alone and combined, against every document.
 */
const values: unknown[] = [undefined, null, 0, 1, 3, 7.5, 12, '', 'a', 'abc', 'B', 'b', true, false];
const docs: Doc[] = [];
let n = 0;
for (const kind of values) {
  for (const tags of [undefined, [], ['a'], ['a', 'b'], [1, 'a'], [null]]) {
    const doc: Doc = { _id: `d${String(n).padStart(3, '0')}`, seq: n, owner: { id: n % 3 === 0 ? 'o1' : 'o2' } };
    if (kind !== undefined) doc.kind = kind;
    if (tags !== undefined) doc.tags = tags;
    // The declared scalar field holds one type (strings or null), as the store assumes.
    doc.status = n % 4 === 0 ? null : ['new', 'old', 'new'][n % 3];
    if (n % 5 !== 0) doc.flag = n % 2 === 0;
    docs.push(doc);
    n += 1;
  }
}

const conditions: Filter[] = [
  { kind: 'a' },
  { kind: 1 },
  { kind: true },
  { kind: null },
  { kind: { $ne: null } },
  { kind: { $in: ['a', 'b', 3] } },
  { kind: { $in: [] } },
  { kind: { $nin: ['a', 1] } },
  { kind: { $gt: 1 } },
  { kind: { $gte: 'a', $lt: 'b' } },
  { kind: { $lte: 3 } },
  { kind: { $exists: true } },
  { kind: { $exists: false } },
  { kind: { $regex: '^a', $options: 'i' } },
  { kind: { $ne: 'a' } },
  { tags: 'a' },
  { tags: 1 },
  { tags: null },
  { tags: [] },
  { tags: ['a'] },
  { tags: { $ne: [] } },
  { tags: { $in: ['b', 1] } },
  { tags: { $nin: ['a'] } },
  { tags: { $regex: 'b' } },
  { tags: { $exists: false } },
  { status: 'new' },
  { status: null },
  { status: { $in: ['old', 'new'] } },
  { status: { $ne: 'new' } },
  { status: { $nin: ['old'] } },
  { status: { $gt: 'n' } },
  { flag: true },
  { flag: false },
  { flag: { $ne: true } },
  { 'owner.id': 'o1' },
  { 'owner.id': { $in: ['o2'] } },
  { _id: { $in: ['d001', 'd050', 'nope'] } },
  { seq: { $gte: 10, $lt: 20 } },
];

describe('filters in SQL', () => {
  it('match what filter.ts matches, alone, with $and, $or and in list pages', async () => {
    const store = embeddedReadStore();
    const collection = store.collection('shapes');
    await collection.createIndex({ status: 1, seq: 1 });
    await collection.createIndex('flag');
    await collection.createIndex('owner.id');
    await collection.bulkWrite(docs.map((doc, i) => ({ type: 'upsert' as const, doc, position: BigInt(i + 1) })));
    const expected = (filter: Filter) => docs.filter((doc) => matches(doc, filter)).map((doc) => doc._id);
    const check = async (filter: Filter) => {
      const what = JSON.stringify(filter);
      expect((await collection.find(filter, { sort: { _id: 1 } })).map((doc) => doc._id), what).toEqual(expected(filter));
      expect(await collection.count(filter), what).toBe(expected(filter).length);
    };
    for (const filter of conditions) await check(filter);
    for (let i = 0; i < conditions.length; i++) {
      const other = conditions[(i * 7 + 3) % conditions.length];
      await check({ $and: [conditions[i], other] });
      await check({ $or: [conditions[i], other] });
      await check({ ...conditions[i], $or: [other, { 'owner.id': 'o1' }] });
    }
    // Pages of a sorted $or (read side by side) equal the matcher's sorted pages.
    for (const filter of [{ $or: [{ status: 'new' }, { 'owner.id': 'o1' }] }, { $and: [{ $or: [{ flag: true }, { status: 'old' }] }, { tags: 'a' }] }]) {
      const sort = { seq: -1, _id: -1 } as const;
      const all = docs.filter((doc) => matches(doc, filter)).sort(sortComparator(sort));
      for (const skip of [0, 3, 10]) {
        expect((await collection.find(filter, { sort, skip, limit: 4 })).map((doc) => doc._id)).toEqual(all.slice(skip, skip + 4).map((doc) => doc._id));
      }
    }
    await store.close();
  });
});

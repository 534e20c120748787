import { describe, expect, it } from 'vitest';
import { planByIndexes, planStages } from './index-match.ts';

describe('planning a query by the declared indexes (MongoDB’s rule)', () => {
  const indexes = [
    { account_id: 1, id: 1, _id: 1 },
    { account_id: 1, sub_id: 1, id: 1, _id: 1 },
    { public: 1, created_at: 1, _id: 1 },
    { account_id: 1, created_at: 1, _id: 1 },
    { image_id: 1 },
  ] as const;

  it('serves equality then sort, in either direction', () => {
    expect(planByIndexes([...indexes], { account_id: 'a' }, { id: 1, _id: 1 })).toMatchObject({ scans: false, sortsInMemory: false });
    expect(planByIndexes([...indexes], { account_id: 'a', sub_id: 's' }, { id: -1, _id: -1 })).toMatchObject({ scans: false, sortsInMemory: false });
    expect(planByIndexes([...indexes], { $and: [{ account_id: 'a' }, { image_species_id: '1' }] }, { id: 1, _id: 1 })).toMatchObject({ scans: false, sortsInMemory: false });
  });

  it('says when an index narrows but the sort is done in memory, and when nothing narrows', () => {
    expect(planByIndexes([...indexes], { account_id: 'a' }, { value: 1 })).toMatchObject({ scans: false, sortsInMemory: true });
    expect(planByIndexes([...indexes], { account_id: 'a' }, { id: 1, _id: -1 })).toMatchObject({ sortsInMemory: true });
    expect(planByIndexes([...indexes], { value: 1 }, { id: 1 })).toMatchObject({ scans: true, sortsInMemory: true });
    expect(planByIndexes([...indexes], { value: 1 })).toMatchObject({ scans: true });
    expect(planByIndexes([...indexes], { _id: { $in: ['x'] } })).toMatchObject({ scans: false });
  });

  it('says when the index it would use matches only some of the equalities, picking the one that matches most', () => {
    const votes = [{ account_id: 1, id: 1, _id: 1 }, { account_id: 1, sub_id: 1, id: 1, _id: 1 }, { image_id: 1 }] as const;
    const ownOnImages = { account_id: 'a', image_id: { $in: ['i1', 'i2'] } };
    expect(planByIndexes([...votes], ownOnImages)).toMatchObject({ scans: false, partialPrefix: true });
    expect(planByIndexes([...votes, { account_id: 1, image_id: 1, id: 1, _id: 1 }], ownOnImages)).toMatchObject({ scans: false, partialPrefix: false });
    expect(planByIndexes([...votes], { account_id: 'a', sub_id: 's' }, { id: -1, _id: -1 })).toMatchObject({ partialPrefix: false });
  });

  it('serves an $or when every branch is served in sort order', () => {
    const visible = { $or: [{ public: true }, { account_id: 'a' }] };
    expect(planByIndexes([...indexes], { $and: [visible, { breed_ids: { $in: ['abys'] } }] }, { created_at: -1, _id: -1 })).toMatchObject({ scans: false, sortsInMemory: false });
    expect(planByIndexes([...indexes], { $or: [{ public: true }, { sub_id: 'x' }] }, { created_at: -1, _id: -1 })).toMatchObject({ scans: true });
  });

  it('reads the stages of an explained plan', () => {
    expect(planStages({ stage: 'LIMIT', inputStage: { stage: 'FETCH', inputStage: { stage: 'SORT_MERGE', inputStages: [{ stage: 'IXSCAN' }, { stage: 'IXSCAN' }] } } })).toEqual([
      'LIMIT',
      'FETCH',
      'SORT_MERGE',
      'IXSCAN',
      'IXSCAN',
    ]);
  });
});

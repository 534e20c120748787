import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collections, type VoteDoc } from '../contracts/read-models.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore, WriteOp } from '../infrastructure/read-store/port.ts';
import { votesProjection } from '../projectors/votes.ts';

/**
 * A list of 5 votes of an account that cast 50,000 reads 5 rows: the embedded store answers the
 * votes list as GET /v1/votes issues it from the votes projection's index (account_id, id, _id),
 * in index order, stopping at the page — its query plan searches that index and sorts nothing —
 * and the answer is the right page at either end of the list. Asserts the plan, not a time.
 */
const VOTES = 50_000;
const dir = mkdtempSync(join(tmpdir(), 'rs-scale-'));
let store: ReadStore;

const vote = (id: number, account: string): VoteDoc => ({
  _id: String(id),
  id,
  account_id: account,
  image_id: `img${id % 500}`,
  sub_id: id % 10 === 0 ? 'tenth' : null,
  value: id % 2 ? 1 : -1,
  country_code: null,
  created_at: new Date(Date.UTC(2026, 0, 1) + id * 1000).toISOString(),
  image_species_id: null,
  image_breed_ids: [],
} as unknown as VoteDoc);

beforeAll(async () => {
  store = embeddedReadStore(join(dir, 'read-models.db'));
  await votesProjection.setup?.(store);
  const votes = store.collection<VoteDoc>(Collections.votes);
  let ops: WriteOp<VoteDoc>[] = [];
  for (let id = 1; id <= VOTES + 5_000; id++) {
    // One busy account, and a few others around it.
    ops.push({ type: 'upsert', doc: vote(id, id <= VOTES ? 'busy' : `other${id % 50}`), position: BigInt(id) });
    if (ops.length === 5_000) {
      await votes.bulkWrite(ops);
      ops = [];
    }
  }
  await votes.bulkWrite(ops);
  await store.setCheckpoint('votes', BigInt(VOTES + 5_000));
}, 120_000);
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the votes list of an account with 50,000 votes', () => {
  const page = (direction: 1 | -1, skip = 0) => ({ sort: { id: direction, _id: direction } as const, skip, limit: 5 });

  it('reads the page from the index, in its order', async () => {
    const votes = store.collection<VoteDoc>(Collections.votes);
    for (const [filter, options] of [
      [{ account_id: 'busy' }, page(1)],
      [{ account_id: 'busy' }, page(-1)],
      [{ account_id: 'busy' }, page(1, 45_000)],
      [{ account_id: 'busy', sub_id: 'tenth' }, page(-1)],
    ] as const) {
      const plan = await votes.explain!(filter, options);
      expect(plan, plan.detail).toMatchObject({ scans: false, sortsInMemory: false });
      expect(plan.detail).toMatch(/^SEARCH rs:votes USING INDEX rs:votes:account_id,(sub_id,)?id,_id \(<expr>=\?( AND <expr>=\?)?\)$/);
    }
    // The same store on a query no index serves says so (the check can fail).
    expect((await votes.explain!({ value: 1 }, page(1))).scans).toBe(true);
  });

  it('answers the right page at either end, and counts from the index', async () => {
    const votes = store.collection<VoteDoc>(Collections.votes);
    expect((await votes.find({ account_id: 'busy' }, page(1))).map((doc) => doc.id)).toEqual([1, 2, 3, 4, 5]);
    expect((await votes.find({ account_id: 'busy' }, page(-1))).map((doc) => doc.id)).toEqual([50_000, 49_999, 49_998, 49_997, 49_996]);
    expect((await votes.find({ account_id: 'busy', sub_id: 'tenth' }, page(-1))).map((doc) => doc.id)).toEqual([50_000, 49_990, 49_980, 49_970, 49_960]);
    expect(await votes.count({ account_id: 'busy' })).toBe(VOTES);
    expect(await votes.count({ account_id: 'other7' })).toBe(100);
  });
});

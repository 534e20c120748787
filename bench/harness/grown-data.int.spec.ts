import { describe, expect, it } from 'vitest';
import { Collections, type ApiKeyDoc, type FavouriteDoc, type ImageDoc, type VoteDoc } from '../../contracts/read-models.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { sha256 } from '../../infrastructure/ids.ts';
import { embeddedReadStore } from '../../infrastructure/read-store/embedded.ts';
import { projections } from '../../projectors/index.ts';
import { projectToHead } from '../../projectors/runner.ts';
import { importLines } from '../../runtime/event-transfer.ts';
import { grownEventLines, grownSize, openGrownAccounts } from './grown-data.ts';

describe('grown data for bench item 8', () => {
  it('imports through the export format and projects to the sizes asked for, on keys that authenticate and images their accounts own', async () => {
    const size = { accounts: 3, votes: 30, favourites: 12, images: 10 };
    const { accounts, lines } = await openGrownAccounts(size);
    const eventStore = sqliteEventStore(':memory:');
    const report = await importLines(eventStore, grownEventLines(size, accounts, lines));
    // accounts' own events, then per image upload + validation + labels, per favourite claim + favourite, one per vote
    expect(report.events).toBe(lines.length + size.images * 3 + size.favourites * 2 + size.votes);

    const readStore = embeddedReadStore();
    for (const projection of projections) await projectToHead(eventStore, readStore, projection);
    expect(await readStore.collection<VoteDoc>(Collections.votes).count()).toBe(size.votes);
    expect(await readStore.collection<FavouriteDoc>(Collections.favourites).count()).toBe(size.favourites);
    expect(await readStore.collection<ImageDoc>(Collections.images).count()).toBe(size.images);
    expect(accounts.map((account) => account.image_ids.length)).toEqual([4, 3, 3]);
    for (const account of accounts) {
      expect(await readStore.collection<ApiKeyDoc>(Collections.apiKeys).get(sha256(account.api_key))).toMatchObject({ account_id: account.account_id });
      for (const imageId of account.image_ids) {
        expect(await readStore.collection<ImageDoc>(Collections.images).get(imageId)).toMatchObject({ account_id: account.account_id, status: 'labelled' });
      }
      // Votes and favourites are the account's own, on its own images.
      const votes = await readStore.collection<VoteDoc>(Collections.votes).find({ account_id: account.account_id });
      expect(votes.length).toBe(10);
      expect(votes.every((vote) => account.image_ids.includes(vote.image_id))).toBe(true);
    }
    await eventStore.close();
  });

  it('scales the full size and takes counts one by one', () => {
    expect(grownSize({})).toEqual({ accounts: 1_000, votes: 1_000_000, favourites: 100_000, images: 100_000 });
    expect(grownSize({ BENCH_GROWN_SCALE: '0.02' })).toEqual({ accounts: 20, votes: 20_000, favourites: 2_000, images: 2_000 });
    expect(grownSize({ BENCH_GROWN_SCALE: '0.02', BENCH_GROWN_VOTES: '500' }).votes).toBe(500);
    expect(() => grownSize({ BENCH_GROWN_SCALE: '0' })).toThrow();
  });
});

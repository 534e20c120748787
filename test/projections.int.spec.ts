import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { openAccount } from '../command-api/handlers/accounts.ts';
import { addFavourite, deleteFavourite } from '../command-api/handlers/favourites.ts';
import { handleCommand } from '../infrastructure/event-store/command-handler.ts';
import { voteDecider } from '../domain/votes/decide.ts';
import { voteStream } from '../domain/votes/vote.ts';
import { projections } from '../projectors/index.ts';
import { projectToHead } from '../projectors/runner.ts';

const context = { accountId: null, requestId: null, actor: 'test' };

const seed = async () => {
  const store = sqliteEventStore(':memory:');
  const { account_id } = await openAccount(store, { name: 'A' }, context);
  for (let i = 1; i <= 6; i++) {
    await handleCommand(store, voteStream(i), voteDecider, {
      type: 'CastVote', vote_id: i, account_id, image_id: `img${i}`, sub_id: null, value: 1, country_code: null, ip_address: null, now: new Date().toISOString(),
    }, context);
  }
  await handleCommand(store, voteStream(2), voteDecider, { type: 'DeleteVote', account_id, now: new Date().toISOString() }, context);
  const fav = await addFavourite(store, { account_id, image_id: 'f', sub_id: null, country_code: null, client_ip_address: null }, context);
  await deleteFavourite(store, fav.favourite.favourite_id, account_id, context);
  await addFavourite(store, { account_id, image_id: 'f', sub_id: null, country_code: null, client_ip_address: null }, context);
  return store;
};

const dump = async (readStore: ReadStore) => {
  const result: Record<string, unknown[]> = {};
  for (const projection of projections) {
    for (const collection of projection.collections) {
      result[collection] = await readStore.collection(collection).find({}, { sort: { _id: 1 } });
    }
  }
  return result;
};

describe('projections', () => {
  it('change nothing when a window of events is applied twice (idempotent)', async () => {
    const eventStore = await seed();
    const readStore = embeddedReadStore();
    for (const projection of projections) await projectToHead(eventStore, readStore, projection);
    const once = await dump(readStore);
    expect(once.votes).toHaveLength(5);
    expect(once.favourites).toHaveLength(2);

    // Replay a window from the middle of the log (as after a crash before a checkpoint), twice.
    const all = await eventStore.readAll();
    const window = all.slice(Math.floor(all.length / 3));
    for (let round = 0; round < 2; round++) {
      for (const projection of projections) {
        for (const event of window.filter((e) => projection.streamPrefixes.some((p) => e.streamName.startsWith(p)))) {
          await projection.apply(event, readStore);
        }
      }
    }
    expect(await dump(readStore)).toEqual(once);
    await eventStore.close();
  });

  it('rebuild from position 0 equals the live read models', async () => {
    const eventStore = await seed();
    const live = embeddedReadStore();
    for (const projection of projections) await projectToHead(eventStore, live, projection);
    const rebuilt = embeddedReadStore();
    for (const projection of projections) await projectToHead(eventStore, rebuilt, projection, { batchSize: 3 });
    expect(await dump(rebuilt)).toEqual(await dump(live));
    await eventStore.close();
    void randomUUID;
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { favouriteDecider } from '../../domain/favourites/decide.ts';
import { favouriteStream } from '../../domain/favourites/favourite.ts';
import { isDomainError } from '../../domain/errors.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { addFavourite, deleteFavourite, type AddFavouriteInput } from './favourites.ts';

const context: CommandContext = { accountId: 'acc-1', requestId: null, actor: 'test' };
const input: AddFavouriteInput = { account_id: 'acc-1', image_id: 'img-1', sub_id: 'u1', country_code: null, client_ip_address: null };

/** Every stream read takes 0–10 ms, as on EventStoreDB or with a second replica. */
const withReadLatency = (store: EventStore): EventStore => ({
  ...store,
  append: store.append.bind(store),
  readStream: async (...args) => {
    await delay(Math.random() * 5); // the request on its way
    const events = await store.readStream(...args);
    await delay(Math.random() * 5); // the answer on its way
    return events;
  },
});

const concurrentAdds = async (store: EventStore, n: number, image_id = input.image_id) => {
  const outcomes = await Promise.allSettled(Array.from({ length: n }, () => addFavourite(store, { ...input, image_id }, context)));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(isDomainError(outcome.reason) && outcome.reason.code).toBe('duplicate_favourite');
  }
  return outcomes.filter((outcome) => outcome.status === "fulfilled").length;
};

describe('favourite uniqueness under concurrency (claim decided on state read in each attempt)', () => {
  let dir: string;
  let raw: EventStore;
  let store: EventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'favourites-'));
    raw = sqliteEventStore(join(dir, 'events.db'));
    store = withReadLatency(raw);
  });
  afterEach(async () => {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets exactly one of 10 concurrent adds win on a fresh triple', async () => {
    expect(await concurrentAdds(store, 10)).toBe(1);
  });

  it('lets exactly one of 10 concurrent re-adds win after a delete (claim released)', async () => {
    const first = await addFavourite(store, input, context);
    await deleteFavourite(store, first.favourite.favourite_id, 'acc-1', context);
    expect(await concurrentAdds(store, 10)).toBe(1);
  });

  it('lets exactly one of 10 concurrent re-adds take over a claim still pointing at a deleted favourite (crash before the release)', async () => {
    for (const image_id of ['img-a', 'img-b', 'img-c']) {
      const holder = await addFavourite(store, { ...input, image_id }, context);
      // The delete of deleteFavourite without its release, as after a crash between the two appends.
      await handleCommand(store, favouriteStream(holder.favourite.favourite_id), favouriteDecider, { type: 'DeleteFavourite', account_id: 'acc-1', now: new Date().toISOString() }, context);
      expect(await concurrentAdds(store, 10, image_id)).toBe(1);
    }
  });
});

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REFERENCE_COLLECTIONS, REFERENCE_PROJECTIONS } from '../contracts/reference-read-models.ts';
import { READ_MODEL_PROJECTIONS } from '../contracts/read-models.ts';
import { voteDecider } from '../domain/votes/decide.ts';
import { voteStream } from '../domain/votes/vote.ts';
import { handleCommand } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore, NewEvent } from '../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { projections } from '../projectors/index.ts';
import { startProjections } from '../projectors/runner.ts';
import { breedCatalogue } from '../query-api/breed-catalogue.ts';
import { REFERENCE_DATA_DIR } from '../reference-data/dataset.ts';

/**
 * Every projection's checkpoint moves with every batch of the log, votes included. The breed
 * catalogue (GET /breeds) must not take that for a change of the breeds: rebuilding it on every
 * batch of votes is what made breed reads collapse beside a stream of votes.
 */
const context = { accountId: null, requestId: null, actor: 'test' };
const [cat] = JSON.parse(readFileSync(join(REFERENCE_DATA_DIR, 'breeds/cats.json'), 'utf8')) as Record<string, unknown>[];

const breedEvent = (type: 'BreedPublished' | 'BreedRevised', record: Record<string, unknown>): NewEvent => ({
  id: randomUUID(),
  type,
  data: { id: record.id, content_hash: randomUUID(), previous_hash: 'x', record, published_at: new Date().toISOString(), revised_at: new Date().toISOString() },
  metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'test', timestamp: new Date().toISOString(), schema_version: 1 },
});

const castVotes = async (store: EventStore, from: number, count: number) => {
  for (let i = from; i < from + count; i++) {
    await handleCommand(store, voteStream(i), voteDecider, {
      type: 'CastVote', vote_id: i, account_id: 'acc-a', image_id: `img${i}`, sub_id: null, value: 1, country_code: null, ip_address: null, now: new Date().toISOString(),
    }, context);
  }
};

const caughtUp = async (eventStore: EventStore, readStore: ReadStore) =>
  expect(await readStore.waitForCheckpoints(READ_MODEL_PROJECTIONS, await eventStore.headPosition(), 5_000)).toBe(true);

let stop: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stop?.();
  stop = null;
});

describe('the breed catalogue beside a stream of votes', () => {
  it('keeps its snapshot (and its built answers) while votes move the breeds checkpoint, and rebuilds when a breed changes', async () => {
    const eventStore = sqliteEventStore(':memory:', { pollIntervalMs: 5 });
    const readStore = embeddedReadStore();
    await eventStore.append(`breed-${String(cat.id)}`, [breedEvent('BreedPublished', cat)], { expectedRevision: 'no_stream' });
    const running = await startProjections(eventStore, readStore, projections, pino({ level: 'silent' }));
    stop = async () => {
      await running.stop();
      await eventStore.close();
    };
    await caughtUp(eventStore, readStore);
    const catalogue = breedCatalogue(readStore);
    const paging = { order: 'ASC', page: 0, limit: 10, lang: 'en' } as const;
    const selection = { breedGroups: [], excludeBreedGroups: [] };
    const first = await catalogue.page(selection, paging);
    const breedsFind = vi.spyOn(readStore.collection(REFERENCE_COLLECTIONS.breeds), 'find');
    const checkpointBefore = await readStore.getCheckpoint(REFERENCE_PROJECTIONS.breeds);

    for (let batch = 0; batch < 5; batch++) {
      await castVotes(eventStore, 1 + batch * 4, 4);
      await caughtUp(eventStore, readStore);
      expect((await catalogue.page(selection, paging)).body).toBe(first.body);
    }
    expect(await readStore.getCheckpoint(REFERENCE_PROJECTIONS.breeds)).toBeGreaterThan(checkpointBefore ?? 0n);
    expect(breedsFind).not.toHaveBeenCalled();

    await eventStore.append(`breed-${String(cat.id)}`, [breedEvent('BreedRevised', { ...cat, name: 'Renamed Cat' })]);
    await caughtUp(eventStore, readStore);
    const after = JSON.parse((await catalogue.page(selection, paging)).body.toString('utf8')) as { name: string }[];
    expect(after.map((breed) => breed.name)).toEqual(['Renamed Cat']);
  });
});

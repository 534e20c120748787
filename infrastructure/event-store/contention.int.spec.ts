import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Decider } from '../../domain/decider.ts';
import { isDomainError } from '../../domain/errors.ts';
import { handleCommand, type CommandContext } from './command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from './port.ts';
import { sqliteEventStore } from './sqlite.ts';

/** A counter stream every command bumps: each append needs the revision just read. */
type Bumped = { type: 'Bumped'; data: { by: string } };
const counter: Decider<number, { by: string }, Bumped> = {
  decide: (command) => [{ type: 'Bumped', data: { by: command.by } }],
  evolve: (state) => state + 1,
  initialState: () => 0,
};
const context: CommandContext = { accountId: null, requestId: null, actor: 'test' };

/** The store with every stream read taking `ms` (a remote EventStoreDB, a second replica): widens the race. */
const withReadLatency = (store: EventStore, ms: () => number): EventStore => ({
  ...store,
  append: store.append.bind(store),
  readStream: async (...args) => {
    await delay(Math.random() * 2); // the request on its way
    const events = await store.readStream(...args);
    await delay(ms());
    return events;
  },
});

describe('optimistic concurrency under contention', () => {
  let dir: string;
  let store: EventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'contention-'));
    store = sqliteEventStore(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 409 conflict, never the raw wrong-revision error, when the retries run out', async () => {
    const slow = withReadLatency(store, () => Math.random() * 4);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => handleCommand(slow, 'counter-1', counter, { by: `r${i}` }, context, { retries: 2 })),
    );
    const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => outcome.reason);
    const succeeded = outcomes.length - failed.length;
    // 20 writers on one stream with 3 tries each: some must lose every time.
    expect(failed.length).toBeGreaterThan(0);
    for (const error of failed) {
      expect(isWrongExpectedRevision(error)).toBe(false);
      expect(isDomainError(error) && error.code).toBe('conflict');
      expect(isDomainError(error) && error.statusCode).toBe(409);
      expect(isDomainError(error) && error.retryAfterSeconds).toBe(1);
    }
    // Every success is in the stream, once; no loser left an event behind.
    expect(await store.readStream('counter-1')).toHaveLength(succeeded);
  });

  it('keeps the wrong-revision error for a new stream (the caller draws a new id)', async () => {
    await handleCommand(store, 'counter-2', counter, { by: 'first' }, context);
    const error = await handleCommand(store, 'counter-2', counter, { by: 'again' }, context, { newStream: true }).catch((caught) => caught);
    expect(isWrongExpectedRevision(error)).toBe(true);
  });
});

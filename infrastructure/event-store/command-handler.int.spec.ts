import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { voteDecider } from '../../domain/votes/decide.ts';
import { voteStream } from '../../domain/votes/vote.ts';
import { quotaDecider, quotaStream } from '../../domain/quota/quota.ts';
import { handleCommand, streamStates, type CommandContext } from './command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from './port.ts';
import { sqliteEventStore } from './sqlite.ts';

const context: CommandContext = { accountId: 'acc-1', requestId: 'req-1', actor: 'test' };
const cast = (voteId: number) => ({
  type: 'CastVote' as const,
  vote_id: voteId,
  account_id: 'acc-1',
  image_id: 'img-1',
  sub_id: null,
  value: 1,
  country_code: null,
  ip_address: null,
  now: '2026-01-01T00:00:00.000Z',
});

describe('handleCommand on the SQLite event store', () => {
  let dir: string;
  let store: EventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'command-handler-'));
    store = sqliteEventStore(join(dir, 'events.db'));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('with newStream, decides on the initial state without reading the stream and appends with no_stream', async () => {
    const readStream = vi.spyOn(store, 'readStream');
    const result = await handleCommand(store, voteStream(1), voteDecider, cast(1), context, { newStream: true });
    expect(readStream).not.toHaveBeenCalled();
    expect(result.events.map((event) => event.type)).toEqual(['VoteCast']);
    const recorded = await store.readStream(voteStream(1));
    expect(recorded.map((event) => [event.type, event.revision])).toEqual([['VoteCast', 0n]]);
    expect(result.position).toBe(recorded[0].position);
  });

  it('with newStream, a stream that exists after all is a wrong-revision error and nothing is appended', async () => {
    await handleCommand(store, voteStream(2), voteDecider, cast(2), context);
    const error = await handleCommand(store, voteStream(2), voteDecider, cast(2), context, { newStream: true }).catch((caught) => caught);
    expect(isWrongExpectedRevision(error)).toBe(true);
    expect(await store.readStream(voteStream(2))).toHaveLength(1);
  });

  describe('with cached stream states', () => {
    const reserve = (imageId: string) => ({ type: 'ReserveUpload' as const, account_id: 'acc-1', image_id: imageId, default_quota: 3, now: '2026-01-05T00:00:00.000Z' });

    it('reads only the events after the cached revision, and sees what other writers appended', async () => {
      const states = streamStates<unknown>();
      const stream = quotaStream('acc-1');
      await handleCommand(store, stream, quotaDecider, reserve('a'), context, { states });
      const readStream = vi.spyOn(store, 'readStream');
      await handleCommand(store, stream, quotaDecider, reserve('b'), context, { states });
      expect(readStream).toHaveBeenLastCalledWith(stream, { fromRevision: 1n });
      // Another writer (no cache) takes the third unit; the cached writer must see it and refuse a fourth.
      await handleCommand(store, stream, quotaDecider, reserve('c'), context);
      const refused = await handleCommand(store, stream, quotaDecider, reserve('d'), context, { states }).catch((error) => error);
      expect(refused.code).toBe('upload_quota_exceeded');
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('a writer that loses the race keeps its cached state and its retry reads only what the winner appended', async () => {
      const states = streamStates<unknown>();
      const stream = quotaStream('acc-1');
      await handleCommand(store, stream, quotaDecider, reserve('a'), context, { states });
      // The winner appends between this writer's read and its append: the first append fails.
      const append = store.append.bind(store);
      let raced = false;
      vi.spyOn(store, 'append').mockImplementation(async (...args) => {
        if (!raced) {
          raced = true;
          await handleCommand(store, stream, quotaDecider, reserve('b'), context);
        }
        return append(...args);
      });
      const readStream = vi.spyOn(store, 'readStream');
      await handleCommand(store, stream, quotaDecider, reserve('c'), context, { states });
      expect(readStream.mock.calls).toEqual([
        [stream, { fromRevision: 1n }], // this writer, from its cache
        [stream], // the winner, without a cache
        [stream, { fromRevision: 1n }], // this writer's retry: still from its cache, now seeing 'b'
      ]);
      expect((await store.readStream(stream)).map((event) => (event.data as { image_id: string }).image_id)).toEqual(['a', 'b', 'c']);
      expect(states.get(stream)?.revision).toBe(2n);
    });

    it('a cached state the stream no longer matches is dropped on the wrong revision and the retry folds it whole', async () => {
      const states = streamStates<unknown>();
      const stream = quotaStream('acc-1');
      await handleCommand(store, stream, quotaDecider, reserve('a'), context);
      // A stale entry claiming a later revision than the stream has (as if the stream had been replaced).
      states.set(stream, { state: quotaDecider.initialState(), revision: 5n });
      await handleCommand(store, stream, quotaDecider, reserve('b'), context, { states });
      expect((await store.readStream(stream)).map((event) => event.revision)).toEqual([0n, 1n]);
      expect(states.get(stream)?.revision).toBe(1n);
    });

    it('keeps at most `max` streams, the least recently used leaving first', () => {
      const states = streamStates<number>(2);
      states.set('s-1', { state: 1, revision: 0n });
      states.set('s-2', { state: 2, revision: 0n });
      states.get('s-1');
      states.set('s-3', { state: 3, revision: 0n });
      expect(states.get('s-2')).toBeUndefined();
      expect(states.get('s-1')?.state).toBe(1);
      expect(states.get('s-3')?.state).toBe(3);
    });
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { voteDecider } from '../../domain/votes/decide.ts';
import { voteStream } from '../../domain/votes/vote.ts';
import { handleCommand, type CommandContext } from './command-handler.ts';
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
});

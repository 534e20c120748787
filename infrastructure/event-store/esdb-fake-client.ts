import { Readable } from 'node:stream';
import {
  BACKWARDS,
  END,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type AppendResult,
  type EventData,
  type Position,
} from '@eventstore/db-client';
import type { EsdbClient } from './eventstoredb.ts';

/**
 * A stand-in for EventStoreDB behind the client's own types, for the adapter's unit suite (no
 * server can run here). It keeps the properties the adapter must not assume away:
 * - positions are byte offsets of records, far apart and irregular; a read or subscription from a
 *   position that is not a record's is refused, as a real server refuses one in the middle of a record;
 * - the log holds system events ($-types, e.g. $statsCollected) that a filter excluding system
 *   events hides from subscriptions but not from reads of $all;
 * - subscriptions start after the given position, hand events over as a Node Readable (object
 *   mode, with the highWaterMark asked for) and go live.
 * It also records every readAll call (direction, start, maxCount) for the suite to check.
 */
type Stored = { id: string; streamId: string; type: string; revision: bigint; position: bigint; data: unknown; metadata: unknown; isJson: boolean };

export type FakeEsdb = EsdbClient & {
  readAllCalls: { direction: string; from: 'start' | 'end' | bigint; maxCount: number | bigint | undefined }[];
  /** Appends a system event (what the server writes on its own). */
  systemEvent: (type?: string) => void;
  openSubscriptions: () => number;
};

export const fakeEsdbClient = (): FakeEsdb => {
  const log: Stored[] = [];
  let nextPosition = 4_096n;
  const live = new Set<{ push: (event: Stored) => void }>();
  const readAllCalls: FakeEsdb['readAllCalls'] = [];

  const write = (record: Omit<Stored, 'position'>): Stored => {
    const stored = { ...record, position: nextPosition };
    nextPosition += 137n + BigInt(Math.floor(Math.random() * 300)); // records have sizes
    log.push(stored);
    for (const subscriber of live) subscriber.push(stored);
    return stored;
  };

  const resolved = (stored: Stored): AllStreamResolvedEvent => ({
    event: {
      streamId: stored.streamId,
      id: stored.id,
      revision: stored.revision,
      type: stored.type,
      data: stored.data as never,
      metadata: stored.metadata as never,
      isJson: true,
      created: new Date(),
      position: { commit: stored.position, prepare: stored.position },
    } as never,
    commitPosition: stored.position,
  });

  const indexAt = (position: Position): number => {
    const index = log.findIndex((stored) => stored.position === position.commit);
    if (index === -1 || position.prepare !== position.commit) {
      throw new Error(`invalid position ${position.commit}/${position.prepare}: not the start of a record`);
    }
    return index;
  };

  const lastRevision = (streamId: string): bigint | null => {
    let revision: bigint | null = null;
    for (const stored of log) if (stored.streamId === streamId) revision = stored.revision;
    return revision;
  };

  const client: FakeEsdb = {
    readAllCalls,
    systemEvent: (type = '$statsCollected') => void write({ id: crypto.randomUUID(), streamId: '$stats-127.0.0.1:2113', type, revision: 0n, data: {}, metadata: {}, isJson: true }),
    openSubscriptions: () => live.size,

    async appendToStream(streamName: string, events: EventData | EventData[], options?: { expectedRevision?: AppendExpectedRevision }) {
      const list = Array.isArray(events) ? events : [events];
      const expected = options?.expectedRevision ?? 'any';
      const current = lastRevision(streamName);
      // Idempotent retry: the same ids already appended with the same expectation.
      const existing = log.filter((stored) => stored.streamId === streamName);
      const firstId = existing.findIndex((stored) => stored.id === list[0]?.id);
      if (firstId !== -1 && list.every((event, i) => existing[firstId + i]?.id === event.id)) {
        const before = firstId === 0 ? null : existing[firstId - 1].revision;
        const matches = expected === 'any' || (expected === 'no_stream' ? before === null : expected === 'stream_exists' ? before !== null : before === expected);
        if (matches) {
          const last = existing[firstId + list.length - 1];
          return { success: true, nextExpectedRevision: last.revision, position: { commit: last.position, prepare: last.position } } satisfies AppendResult;
        }
        throw new WrongExpectedVersionError(undefined, { streamName, expected, current: current ?? 'no_stream' });
      }
      const ok =
        expected === 'any' || (expected === 'no_stream' ? current === null : expected === 'stream_exists' ? current !== null : current === expected);
      if (!ok) throw new WrongExpectedVersionError(undefined, { streamName, expected, current: current ?? 'no_stream' });
      let revision = current ?? -1n;
      let last: Stored | undefined;
      for (const event of list) {
        revision += 1n;
        last = write({ id: event.id, streamId: streamName, type: event.type, revision, data: event.data, metadata: event.metadata, isJson: true });
      }
      return { success: true, nextExpectedRevision: revision, position: { commit: (last as Stored).position, prepare: (last as Stored).position } } satisfies AppendResult;
    },

    readStream(streamName: string, options: { direction?: string; fromRevision?: bigint | typeof START | typeof END; maxCount?: number | bigint } = {}) {
      const events = log.filter((stored) => stored.streamId === streamName);
      return (async function* () {
        if (events.length === 0) throw new StreamNotFoundError(undefined, streamName);
        const backwards = options.direction === BACKWARDS;
        let list = backwards ? [...events].reverse() : events;
        const from = options.fromRevision;
        if (typeof from === 'bigint') list = list.filter((stored) => (backwards ? stored.revision <= from : stored.revision >= from));
        yield* list.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(resolved);
      })() as never;
    },

    readAll(options: { direction?: string; fromPosition?: Position | typeof START | typeof END; maxCount?: number | bigint } = {}) {
      const backwards = options.direction === BACKWARDS;
      const from = options.fromPosition ?? (backwards ? END : START);
      readAllCalls.push({ direction: backwards ? 'backwards' : 'forwards', from: from === START ? 'start' : from === END ? 'end' : (from as Position).commit, maxCount: options.maxCount });
      return (async function* () {
        let list: Stored[];
        if (backwards) {
          const end = from === END ? log.length : indexAt(from as Position);
          list = log.slice(0, end).reverse();
        } else {
          list = log.slice(from === START ? 0 : indexAt(from as Position));
        }
        yield* list.slice(0, Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)).map(resolved);
      })() as never;
    },

    subscribeToAll(options: { fromPosition?: Position | typeof START | typeof END; filter?: unknown } = {}, readableOptions: { highWaterMark?: number } = {}) {
      const from = options.fromPosition ?? START;
      const excludeSystem = options.filter !== undefined;
      const visible = (stored: Stored) => !excludeSystem || !stored.type.startsWith('$');
      const stream = new Readable({ objectMode: true, highWaterMark: readableOptions.highWaterMark ?? 16, read() {} });
      const subscriber = { push: (stored: Stored) => void (visible(stored) && stream.push(resolved(stored))) };
      try {
        const start = from === START ? 0 : from === END ? log.length : indexAt(from as Position) + 1;
        for (const stored of log.slice(start)) subscriber.push(stored);
      } catch (error) {
        queueMicrotask(() => stream.destroy(error as Error));
      }
      live.add(subscriber);
      const close = () => live.delete(subscriber);
      stream.once('close', close);
      return Object.assign(stream, {
        unsubscribe: async () => {
          close();
          stream.push(null);
          stream.destroy();
        },
      }) as AllStreamSubscription;
    },

    async dispose() {
      live.clear();
    },
  } as FakeEsdb;
  return client;
};

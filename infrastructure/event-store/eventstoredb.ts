import { setTimeout as delay } from 'node:timers/promises';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedRevisionError,
  matchesFilter,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';

/** The port's expectations are EventStoreDB's own values; only the type differs. */
export const toExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => expected;

/** Our global position is EventStoreDB's commit position (exact bigint, never a Number). */
const toEsdbPosition = (position: bigint): Position => ({ commit: position, prepare: position });

const toRecorded = (resolved: ResolvedEvent): RecordedEvent | null => {
  const event = resolved.event;
  if (!event || event.type.startsWith('$') || !event.isJson) return null;
  return {
    id: event.id,
    type: event.type,
    streamName: event.streamId,
    revision: event.revision,
    position: event.position?.commit ?? resolved.commitPosition ?? 0n,
    data: event.data as Record<string, unknown>,
    metadata: event.metadata as EventMetadata,
  };
};

const collect = async (iterable: AsyncIterable<ResolvedEvent>): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  try {
    for await (const resolved of iterable) {
      const recorded = toRecorded(resolved);
      if (recorded) events.push(recorded);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
  return events;
};

/** What the adapter uses of the client (the unit suite gives a fake of exactly this). */
export type EsdbClient = Pick<EventStoreDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

/** The position of a resolved event as the store gave it (never computed). */
const positionOf = (resolved: AllStreamResolvedEvent | ResolvedEvent): bigint | null =>
  resolved.event?.position?.commit ?? resolved.commitPosition ?? null;

/**
 * The next events the subscription has buffered, up to `max`, waiting only while it has none:
 * a batch is whatever arrived while the previous one was being handled (backpressure: nothing is
 * read while a handler runs). Null once the subscription ended or was closed.
 */
export const nextBatch = async (source: AllStreamSubscription, max: number): Promise<AllStreamResolvedEvent[] | null> => {
  for (;;) {
    const batch: AllStreamResolvedEvent[] = [];
    while (batch.length < max) {
      const item = source.read() as AllStreamResolvedEvent | null;
      if (item === null) break;
      batch.push(item);
    }
    if (batch.length > 0) return batch;
    if (source.errored) throw source.errored;
    if (source.readableEnded || source.destroyed) return null;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        cleanup();
        resolve();
      };
      const fail = (error: Error) => {
        cleanup();
        reject(error);
      };
      const cleanup = () => {
        source.off('readable', done);
        source.off('end', done);
        source.off('close', done);
        source.off('error', fail);
      };
      source.on('readable', done);
      source.on('end', done);
      source.on('close', done);
      source.on('error', fail);
    });
  }
};

export type EventStoreDbOptions = {
  /** A client to use instead of one made from the connection string (the unit suite's fake). */
  client?: EsdbClient;
  /** Pause before a failed batch is handed to its handler again. */
  retryDelayMs?: number;
};

/**
 * The event store on EventStoreDB via @eventstore/db-client. Catch-up subscriptions run on `$all`
 * with system events excluded, and hand their handler batches (up to `batchSize`, 500 by default:
 * whatever the server delivered while the previous batch was handled), as the SQLite adapter does.
 * Every position handed out is one the server returned: an event's commit position; a batch's
 * `lastPosition` is that of its last event read. A failing batch is retried until it succeeds or
 * the subscription stops, and the position never moves past an event that was not handled. The
 * client does not resume a dropped subscription, so this adapter resubscribes from the last
 * position handled, with back-off.
 * Connection string example: esdb://127.0.0.1:2113?tls=false&keepAliveInterval=10000&keepAliveTimeout=10000
 */
export const eventStoreDbEventStore = (connectionString: string, adapterOptions: EventStoreDbOptions = {}): EventStore => {
  const client: EsdbClient = adapterOptions.client ?? EventStoreDBClient.connectionString(connectionString);
  const retryDelayMs = adapterOptions.retryDelayMs ?? 500;
  const subscriptions = new Set<Subscription>();

  const subscribe = (options: SubscribeOptions): Subscription => {
    let position = options.after ?? 0n;
    const batchSize = Math.max(1, options.batchSize ?? 500);
    let stopped = false;
    let current: AllStreamSubscription | null = null;

    /** Hands one batch over until it is handled; false if the subscription stopped first (position unchanged). */
    const deliver = async (events: RecordedEvent[], last: bigint): Promise<boolean> => {
      for (;;) {
        if (stopped) return false;
        try {
          await options.onEvents(events, last);
          position = last;
          return true;
        } catch (error) {
          options.onError?.(error);
          if (stopped) return false;
          await delay(retryDelayMs);
        }
      }
    };

    const loop = (async () => {
      let failures = 0;
      while (!stopped) {
        const subscription = client.subscribeToAll(
          { fromPosition: position === 0n ? START : toEsdbPosition(position), filter: excludeSystemEvents() },
          { highWaterMark: batchSize },
        );
        current = subscription;
        try {
          for (;;) {
            const resolved = await nextBatch(subscription, batchSize);
            if (resolved === null || stopped) break;
            let last: bigint | null = null;
            const events: RecordedEvent[] = [];
            for (const item of resolved) {
              const at = positionOf(item);
              if (at === null || at <= position) continue;
              if (last === null || at > last) last = at;
              const recorded = toRecorded(item);
              if (recorded && matchesFilter(recorded, options.filter)) events.push(recorded);
            }
            if (last === null) continue;
            if (!(await deliver(events, last))) break;
            failures = 0;
          }
          if (!stopped) throw new Error('the $all subscription ended');
        } catch (error) {
          if (stopped) break;
          options.onError?.(error);
          failures += 1;
          await delay(Math.min(10_000, 100 * 2 ** Math.min(failures, 7)));
        } finally {
          await subscription.unsubscribe().catch(() => undefined);
        }
      }
    })();

    const handle: Subscription = {
      get position() {
        return position;
      },
      stop: async () => {
        stopped = true;
        await current?.unsubscribe().catch(() => undefined);
        await loop;
        subscriptions.delete(handle);
      },
    };
    subscriptions.add(handle);
    return handle;
  };

  /**
   * The position of the last user event: one event read backwards from the end (system events
   * such as $statsCollected can end the log; then the next pages back are read until a user event
   * shows up, 32 then 500 at a time).
   */
  const headPosition = async (): Promise<bigint> => {
    let from: Position | typeof END = END;
    for (const pageSize of [1, 32, 500, 500, 500]) {
      let read = 0;
      let lastPosition: Position | undefined;
      for await (const resolved of client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize })) {
        read += 1;
        if (toRecorded(resolved)) return positionOf(resolved) ?? 0n;
        lastPosition = resolved.event?.position ?? lastPosition;
      }
      // A short page is the start of the log (a re-read boundary event is harmless: it is a system one).
      if (read < pageSize || !lastPosition) return 0n;
      from = lastPosition;
    }
    return 0n;
  };

  const append: EventStore['append'] = async (streamName, events, options = {}) => {
    const expected = options.expectedRevision ?? 'any';
    try {
      const result = await client.appendToStream(
        streamName,
        events.map((event) => jsonEvent({ id: event.id, type: event.type, data: event.data, metadata: event.metadata })),
        { expectedRevision: toExpectedRevision(expected) },
      );
      return { nextRevision: result.nextExpectedRevision, position: result.position?.commit ?? 0n };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        throw new WrongExpectedRevisionError(streamName, expected, error.actualVersion === 'no_stream' ? 'no_stream' : BigInt(error.actualVersion));
      }
      throw error;
    }
  };

  return {
    append,
    async appendAll(appends) {
      // EventStoreDB (this client) appends to one stream at a time: in order, stopping at the first failure.
      const results: AppendResult[] = [];
      for (const { streamName, events, expectedRevision } of appends) results.push(await append(streamName, events, { expectedRevision }));
      return results;
    },
    async readStream(streamName, options = {}) {
      const backwards = options.direction === 'backwards';
      return collect(
        client.readStream(streamName, {
          direction: backwards ? BACKWARDS : FORWARDS,
          fromRevision: options.fromRevision ?? (backwards ? END : START),
          ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
        }),
      );
    },
    async existingStreams(streamNames) {
      // EventStoreDB has no query over many streams: one read of at most one event each, together.
      const found = await Promise.all(
        streamNames.map(async (name) => ((await collect(client.readStream(name, { direction: FORWARDS, fromRevision: START, maxCount: 1 }))).length > 0 ? name : null)),
      );
      return new Set(found.filter((name): name is string => name !== null));
    },
    async readAll(options = {}) {
      const backwards = options.direction === 'backwards';
      const after = options.after ?? 0n;
      const wanted = options.maxCount ?? Number.MAX_SAFE_INTEGER;
      const events: RecordedEvent[] = [];
      // System events are skipped, so read in pages until enough user events are gathered.
      let from: Position | typeof START | typeof END = backwards ? END : after === 0n ? START : toEsdbPosition(after);
      for (;;) {
        const page = client.readAll({ direction: backwards ? BACKWARDS : FORWARDS, fromPosition: from, maxCount: 500 });
        let read = 0;
        let last: Position | undefined;
        for await (const resolved of page) {
          read += 1;
          last = resolved.event?.position;
          const recorded = toRecorded(resolved);
          if (!recorded) continue;
          if (backwards ? recorded.position <= after : recorded.position <= after) {
            if (backwards) return events;
            continue;
          }
          if (events.some((event) => event.id === recorded.id)) continue;
          events.push(recorded);
          if (events.length >= wanted) return events;
        }
        if (read < 500 || !last) return events;
        from = last;
      }
    },
    subscribe,
    headPosition,
    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await client.dispose();
    },
  };
};

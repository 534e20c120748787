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
  type AppendExpectedRevision,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedRevisionError,
  matchesFilter,
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
    metadata: event.metadata as unknown as EventMetadata,
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

/**
 * The event store on EventStoreDB via @eventstore/db-client. Catch-up subscriptions run on `$all`
 * with system events excluded; the client does not resume a dropped subscription, so this
 * adapter resubscribes from the last position it handed over, with back-off.
 * Connection string example: esdb://127.0.0.1:2113?tls=false&keepAliveInterval=10000&keepAliveTimeout=10000
 */
export const eventStoreDbEventStore = (connectionString: string): EventStore => {
  const client = EventStoreDBClient.connectionString(connectionString);
  const subscriptions = new Set<Subscription>();

  const subscribe = (options: SubscribeOptions): Subscription => {
    let position = options.after ?? 0n;
    let stopped = false;
    let current: { unsubscribe: () => Promise<void> } | null = null;

    const loop = (async () => {
      let failures = 0;
      while (!stopped) {
        const subscription = client.subscribeToAll({
          fromPosition: position === 0n ? START : toEsdbPosition(position),
          filter: excludeSystemEvents(),
        });
        current = subscription;
        try {
          for await (const resolved of subscription) {
            if (stopped) break;
            const recorded = toRecorded(resolved);
            if (!recorded || recorded.position <= position) continue;
            for (;;) {
              try {
                await options.onEvents(matchesFilter(recorded, options.filter) ? [recorded] : [], recorded.position);
                break;
              } catch (error) {
                options.onError?.(error);
                if (stopped) break;
                await delay(500);
              }
            }
            position = recorded.position;
            failures = 0;
          }
        } catch (error) {
          if (stopped) break;
          options.onError?.(error);
          failures += 1;
          await delay(Math.min(10_000, 100 * 2 ** Math.min(failures, 7)));
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

  return {
    async append(streamName, events, options = {}) {
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
    async headPosition() {
      const [last] = await this.readAll({ direction: 'backwards', maxCount: 1 });
      return last?.position ?? 0n;
    },
    async close() {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await client.dispose();
    },
  };
};

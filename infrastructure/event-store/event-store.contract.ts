import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isWrongExpectedRevision, type EventStore, type NewEvent, type RecordedEvent } from './port.ts';

/**
 * The contract every event store adapter must pass. Call it from an adapter's spec file with a
 * factory that gives a fresh, empty store (or one where `uniqueStream` names never clash).
 */
export const eventStoreContract = (adapterName: string, makeStore: () => Promise<EventStore>): void => {
  describe(`event store contract: ${adapterName}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const stream = () => `contract-${randomUUID()}`;
    const event = (type = 'Something', data: Record<string, unknown> = {}): NewEvent => ({
      id: randomUUID(),
      type,
      data,
      metadata: {
        account_id: 'acc-1',
        correlation_id: 'corr-1',
        causation_id: null,
        request_id: 'req-1',
        actor: 'test',
        timestamp: new Date().toISOString(),
        schema_version: 1,
      },
    });

    it('appends to a new stream with no_stream and reports revision 0 and a position', async () => {
      const name = stream();
      const result = await store.append(name, [event('A', { n: 1 })], { expectedRevision: 'no_stream' });
      expect(result.nextRevision).toBe(0n);
      expect(typeof result.position).toBe('bigint');
      expect(result.position > 0n).toBe(true);
      const [read] = await store.readStream(name);
      expect(read.type).toBe('A');
      expect(read.data).toEqual({ n: 1 });
      expect(read.revision).toBe(0n);
      expect(read.position).toBe(result.position);
      expect(read.metadata).toMatchObject({ account_id: 'acc-1', correlation_id: 'corr-1', request_id: 'req-1', actor: 'test' });
    });

    it('rejects a wrong expectation with a typed conflict and appends nothing', async () => {
      const name = stream();
      await store.append(name, [event(), event()], { expectedRevision: 'no_stream' });
      const attempts = [
        store.append(name, [event()], { expectedRevision: 'no_stream' }),
        store.append(name, [event()], { expectedRevision: 0n }),
        store.append(name, [event()], { expectedRevision: 5n }),
        store.append(stream(), [event()], { expectedRevision: 'stream_exists' }),
      ];
      for (const attempt of attempts) {
        const error = await attempt.then(() => null, (e: unknown) => e);
        expect(isWrongExpectedRevision(error)).toBe(true);
      }
      expect((await store.readStream(name)).length).toBe(2);
    });

    it('accepts exact, stream_exists and any expectations', async () => {
      const name = stream();
      await store.append(name, [event()], { expectedRevision: 'no_stream' });
      expect((await store.append(name, [event()], { expectedRevision: 0n })).nextRevision).toBe(1n);
      expect((await store.append(name, [event()], { expectedRevision: 'stream_exists' })).nextRevision).toBe(2n);
      expect((await store.append(name, [event(), event()], { expectedRevision: 'any' })).nextRevision).toBe(4n);
      expect((await store.append(stream(), [event()])).nextRevision).toBe(0n);
    });

    it('reads a stream forwards and backwards, from a revision, with a max count', async () => {
      const name = stream();
      await store.append(name, [0, 1, 2, 3, 4].map((n) => event('N', { n })), { expectedRevision: 'no_stream' });
      const ns = (events: RecordedEvent[]) => events.map((e) => e.data.n);
      expect(ns(await store.readStream(name))).toEqual([0, 1, 2, 3, 4]);
      expect(ns(await store.readStream(name, { fromRevision: 2n }))).toEqual([2, 3, 4]);
      expect(ns(await store.readStream(name, { fromRevision: 1n, maxCount: 2 }))).toEqual([1, 2]);
      expect(ns(await store.readStream(name, { direction: 'backwards' }))).toEqual([4, 3, 2, 1, 0]);
      expect(ns(await store.readStream(name, { direction: 'backwards', fromRevision: 3n, maxCount: 2 }))).toEqual([3, 2]);
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('tells which of many streams hold events', async () => {
      const [one, many, missing, quoted] = [stream(), stream(), stream(), `${stream()}-"it's"`];
      await store.append(one, [event()]);
      await store.append(many, [event(), event(), event()]);
      await store.append(quoted, [event()]);
      expect(await store.existingStreams([one, missing, many, quoted, one])).toEqual(new Set([one, many, quoted]));
      expect(await store.existingStreams([missing])).toEqual(new Set());
      expect(await store.existingStreams([])).toEqual(new Set());
    });

    it('reads all events in global order after a position', async () => {
      const a = stream();
      const b = stream();
      // Only positions the store gave out: an adapter's positions need not be consecutive numbers
      // (EventStoreDB's are byte offsets in its log; one in the middle of a record is refused).
      const before = await store.headPosition();
      await store.append(a, [event('A1')]);
      await store.append(b, [event('B1')]);
      await store.append(a, [event('A2')]);
      const after = await store.readAll({ after: before });
      const ours = after.filter((e) => e.streamName === a || e.streamName === b).map((e) => e.type);
      expect(ours).toEqual(['A1', 'B1', 'A2']);
      const positions = after.map((e) => e.position);
      expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
      expect((await store.readAll({ after: before, maxCount: 2 })).length).toBe(2);
      expect((await store.readAll({ after: after[0].position })).map((e) => e.type)).toEqual(after.slice(1).map((e) => e.type));
      const [last] = await store.readAll({ direction: 'backwards', maxCount: 1 });
      expect(last.type).toBe('A2');
      expect(await store.headPosition()).toBe(last.position);
    });

    it('is idempotent when the same event ids are retried with the same expectation', async () => {
      const name = stream();
      const events = [event('X'), event('Y')];
      const first = await store.append(name, events, { expectedRevision: 'no_stream' });
      const again = await store.append(name, events, { expectedRevision: 'no_stream' });
      expect(again).toEqual(first);
      expect((await store.readStream(name)).length).toBe(2);
      const otherExpectation = await store.append(name, events, { expectedRevision: 1n }).then(() => null, (e: unknown) => e);
      expect(isWrongExpectedRevision(otherExpectation)).toBe(true);
    });

    it('appends to several streams in order (appendAll), each at its own expectation', async () => {
      const [first, second] = [stream(), stream()];
      await store.append(first, [event('Before')], { expectedRevision: 'no_stream' });
      const results = await store.appendAll([
        { streamName: first, events: [event('Claimed')], expectedRevision: 0n },
        { streamName: second, events: [event('Added'), event('More')], expectedRevision: 'no_stream' },
      ]);
      expect(results.map((result) => result.nextRevision)).toEqual([1n, 1n]);
      expect(results[0].position < results[1].position).toBe(true);
      expect((await store.readStream(first)).map((e) => [e.type, e.position])).toEqual([
        ['Before', (await store.readStream(first))[0].position],
        ['Claimed', results[0].position],
      ]);
      expect((await store.readStream(second)).map((e) => e.type)).toEqual(['Added', 'More']);
      expect((await store.readStream(second))[1].position).toBe(results[1].position);
      expect(await store.appendAll([])).toEqual([]);
    });

    it('appendAll: a wrong expectation is a typed conflict naming its stream; nothing after it is appended', async () => {
      const [taken, next] = [stream(), stream()];
      await store.append(taken, [event()], { expectedRevision: 'no_stream' });
      const error = await store
        .appendAll([
          { streamName: taken, events: [event('Refused')], expectedRevision: 'no_stream' },
          { streamName: next, events: [event('Never')], expectedRevision: 'no_stream' },
        ])
        .then(() => null, (e: unknown) => e);
      expect(isWrongExpectedRevision(error) && error.streamName).toBe(taken);
      expect((await store.readStream(taken)).length).toBe(1);
      expect(await store.readStream(next)).toEqual([]);
    });

    it('lets exactly one of many concurrent appends win each revision', async () => {
      const name = stream();
      await store.append(name, [event()], { expectedRevision: 'no_stream' });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => store.append(name, [event('Race')], { expectedRevision: 0n })),
      );
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected.every((r) => isWrongExpectedRevision(r.reason))).toBe(true);
      expect((await store.readStream(name)).length).toBe(2);
    });

    it('subscribes: catches up from a position, then goes live, with a filter', async () => {
      const prefix = `sub${randomUUID().slice(0, 8)}`;
      const before = await store.headPosition();
      await store.append(`${prefix}-1`, [event('Old')]);
      await store.append(`other${prefix}-1`, [event('Ignored')]);
      const seen: string[] = [];
      let checkpoint = before;
      const subscription = store.subscribe({
        after: before,
        filter: { streamPrefixes: [`${prefix}-`] },
        onEvents: async (events, lastPosition) => {
          seen.push(...events.map((e) => e.type));
          checkpoint = lastPosition;
        },
      });
      await expect.poll(() => seen, { timeout: 5000 }).toEqual(['Old']);
      const live = await store.append(`${prefix}-2`, [event('Live')]);
      await expect.poll(() => seen, { timeout: 5000 }).toEqual(['Old', 'Live']);
      await expect.poll(() => checkpoint, { timeout: 5000 }).toBe(live.position);
      await subscription.stop();
      await store.append(`${prefix}-3`, [event('AfterStop')]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(seen).toEqual(['Old', 'Live']);
    });

    it('hands over batches of at most batchSize events, each with a lastPosition the store returned', async () => {
      const prefix = `batch${randomUUID().slice(0, 8)}`;
      const before = await store.headPosition();
      const appended: bigint[] = [];
      for (let i = 0; i < 7; i++) appended.push((await store.append(`${prefix}-${i}`, [event('B')])).position);
      const batches: { size: number; last: bigint }[] = [];
      const subscription = store.subscribe({
        after: before,
        batchSize: 3,
        filter: { streamPrefixes: [`${prefix}-`] },
        onEvents: async (events, lastPosition) => {
          if (events.length > 0) batches.push({ size: events.length, last: lastPosition });
        },
      });
      await expect.poll(() => batches.reduce((n, batch) => n + batch.size, 0), { timeout: 5000 }).toBe(7);
      await subscription.stop();
      expect(batches.every((batch) => batch.size <= 3)).toBe(true);
      expect(batches.every((batch) => appended.includes(batch.last))).toBe(true);
      expect(batches.at(-1)?.last).toBe(appended[6]);
    });

    it('never moves past an event whose handler kept failing until stop', async () => {
      const prefix = `stuck${randomUUID().slice(0, 8)}`;
      const before = await store.headPosition();
      await store.append(`${prefix}-1`, [event('Poison')]);
      let calls = 0;
      const subscription = store.subscribe({
        after: before,
        filter: { streamPrefixes: [`${prefix}-`] },
        onEvents: async (events) => {
          if (events.length === 0) return;
          calls += 1;
          throw new Error('always fails');
        },
      });
      await expect.poll(() => calls, { timeout: 5000 }).toBeGreaterThan(0);
      await subscription.stop();
      expect(subscription.position <= before).toBe(true);
    });

    it('retries a batch whose handler failed, so nothing is skipped', async () => {
      const prefix = `retry${randomUUID().slice(0, 8)}`;
      const before = await store.headPosition();
      await store.append(`${prefix}-1`, [event('One')]);
      let calls = 0;
      const seen: string[] = [];
      const subscription = store.subscribe({
        after: before,
        filter: { streamPrefixes: [`${prefix}-`] },
        onEvents: async (events) => {
          calls += 1;
          if (calls === 1 && events.length > 0) throw new Error('transient');
          seen.push(...events.map((e) => e.type));
        },
      });
      await expect.poll(() => seen, { timeout: 5000 }).toEqual(['One']);
      await subscription.stop();
    });

    it('keeps positions as exact bigints', async () => {
      const before = await store.headPosition();
      const result = await store.append(stream(), [event()]);
      const [read] = await store.readAll({ after: before, maxCount: 1 });
      expect(read.position).toBe(result.position);
      expect(typeof read.revision).toBe('bigint');
    });
  });
};

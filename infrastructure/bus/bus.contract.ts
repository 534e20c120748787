import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byKey } from './by-key.ts';
import { fromBusMessage, topicFor } from './envelope.ts';
import type { Bus, ConsumeOptions, Consumer, IncomingMessage } from './port.ts';

/**
 * A bus under test and how events get onto it: appended to the event log (the embedded bus reads
 * the log itself) or published as the relay publishes them (a broker). `close` closes the bus and
 * whatever the harness opened for it.
 */
export type BusUnderTest = {
  bus: Bus;
  append: (events: { streamName: string; value: string }[]) => Promise<void>;
  close: () => Promise<void>;
};

/** What a contract event carries: its `value`, read back from the message as consumers read events. */
const valueOf = (message: IncomingMessage): string => String((fromBusMessage(message).data as { value: unknown }).value);

/**
 * The contract every bus adapter must pass. `makeBus` may be called more than once per test
 * (a second instance stands for a restarted process) and must then reach the same messages.
 * Each test has a topic of its own: a stream category nobody else writes (`events.c1a2b3c4d`).
 * `features.partitions`: the bus splits a topic into partitions (a broker), so batches of
 * different partitions can be worked on at once (`concurrentBatches`).
 */
export const busContract = (adapterName: string, makeBus: () => Promise<BusUnderTest>, features: { partitions?: boolean } = {}): void => {
  describe(`bus contract: ${adapterName}`, () => {
    let harness: BusUnderTest;
    let bus: Bus;
    let category: string;
    let topic: string;
    const consumers: Consumer[] = [];
    const open = async () => {
      harness = await makeBus();
      bus = harness.bus;
    };
    const restart = async () => {
      await harness.close();
      await open();
    };
    beforeEach(async () => {
      await open();
      category = `c${randomUUID().slice(0, 8)}`;
      topic = topicFor(category);
    });
    afterEach(async () => {
      for (const consumer of consumers.splice(0)) await consumer.stop();
      await harness.close();
    });

    const publish = (messages: { key: string; value: string }[]) =>
      harness.append(messages.map((message) => ({ streamName: `${category}-${message.key}`, value: message.value })));
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    /** The key part of a message's stream (`k1` of `c1a2b3c4d-k1`). */
    const keyOf = (message: IncomingMessage) => message.key.slice(category.length + 1);

    const publishN = (n: number, key = 'k', start = 0) => publish(Array.from({ length: n }, (_, i) => ({ key, value: String(start + i) })));

    const collect = async (group: string, into: string[], target: Bus = bus, fail?: (m: IncomingMessage) => boolean) => {
      const consumer = await target.consume({
        group,
        topics: [topic],
        handle: async (message) => {
          if (fail?.(message)) throw new Error('handler failed');
          into.push(valueOf(message));
        },
      });
      consumers.push(consumer);
      return consumer;
    };

    it('delivers every message of a key in order, including ones published later', async () => {
      const seen: string[] = [];
      await publishN(5);
      await collect(`g-${randomUUID()}`, seen);
      await publishN(5, 'k', 5);
      await expect.poll(() => seen, { timeout: 20_000 }).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    });

    it('hands a group only the messages of its topics, each naming its topic, its stream as key and carrying the event', async () => {
      const other = `c${randomUUID().slice(0, 8)}`;
      const received: IncomingMessage[] = [];
      await publishN(2, 'k');
      await harness.append([{ streamName: `${other}-k`, value: 'elsewhere' }]);
      await publishN(1, 'j', 2);
      consumers.push(await bus.consume({ group: `gt-${randomUUID()}`, topics: [topic], handle: async (message) => void received.push(message) }));
      await expect.poll(() => received.length, { timeout: 20_000 }).toBe(3);
      await settle();
      // Order holds per key only (a broker spreads keys over partitions).
      const byValue = [...received].sort((x, y) => Number(valueOf(x)) - Number(valueOf(y)));
      expect(byValue.map(valueOf)).toEqual(['0', '1', '2']);
      expect(received.filter((message) => keyOf(message) === 'k').map(valueOf)).toEqual(['0', '1']);
      expect(byValue.map((message) => message.topic)).toEqual([topic, topic, topic]);
      expect(byValue.map((message) => message.key)).toEqual([`${category}-k`, `${category}-k`, `${category}-j`]);
      const event = fromBusMessage(byValue[2]);
      expect(event).toMatchObject({ streamName: `${category}-j`, type: 'ContractEvent', data: { value: '2' } });
      expect(typeof event.position).toBe('bigint');
      expect(typeof event.revision).toBe('bigint');
    });

    it('reports the lag of the groups it consumes: waiting messages, zero once handled', async () => {
      if (!bus.lag) return;
      const group = `glag-${randomUUID()}`;
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const seen: string[] = [];
      await publishN(4);
      consumers.push(
        await bus.consume({
          group,
          topics: [topic],
          handle: async (message) => {
            await gate;
            seen.push(valueOf(message));
          },
        }),
      );
      const lagOf = async () => (await bus.lag!()).find((entry) => entry.group === group)?.messages;
      expect(await lagOf()).toBe(4);
      release();
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(4);
      await expect.poll(lagOf, { timeout: 20_000 }).toBe(0);
    });

    it('gives every group every message', async () => {
      const a: string[] = [];
      const b: string[] = [];
      await publishN(3);
      await collect(`ga-${randomUUID()}`, a);
      await collect(`gb-${randomUUID()}`, b);
      await expect.poll(() => a.length, { timeout: 20_000 }).toBe(3);
      await expect.poll(() => b.length, { timeout: 20_000 }).toBe(3);
    });

    it('redelivers a message whose handler failed (at-least-once)', async () => {
      const seen: string[] = [];
      let failedOnce = false;
      await publishN(3);
      await collect(`gf-${randomUUID()}`, seen, bus, (message) => {
        if (valueOf(message) === '1' && !failedOnce) {
          failedOnce = true;
          return true;
        }
        return false;
      });
      await expect.poll(() => seen, { timeout: 20_000 }).toEqual(['0', '1', '2']);
    });

    it('resumes a group from its committed offset after a restart, losing nothing', async () => {
      const group = `gr-${randomUUID()}`;
      const seen: string[] = [];
      await publishN(3);
      const first = await collect(group, seen);
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(3);
      await first.stop();
      consumers.splice(consumers.indexOf(first), 1);
      await publishN(2, 'k', 3);
      await restart();
      await collect(group, seen);
      await expect.poll(() => seen, { timeout: 30_000 }).toEqual(['0', '1', '2', '3', '4']);
    });

    /** Subscribes `group` with a handleBatch; every batch handed over is recorded in `batches`. */
    const collectBatches = async (group: string, handleBatch: (messages: IncomingMessage[]) => Promise<void>, target: Bus = bus) => {
      const consumer = await target.consume({ group, topics: [topic], handleBatch });
      consumers.push(consumer);
      return consumer;
    };

    const publishKeyed = (n: number, keys: number, start = 0) =>
      publish(Array.from({ length: n }, (_, i) => ({ key: `k${(start + i) % keys}`, value: String(start + i) })));

    const range = (n: number, start = 0) => Array.from({ length: n }, (_, i) => String(start + i));
    const numerically = (values: string[]) => [...values].sort((x, y) => Number(x) - Number(y));

    it('handleBatch: delivers every message once, including ones published later', async () => {
      const seen: string[] = [];
      await publishKeyed(30, 5);
      await collectBatches(`gb-${randomUUID()}`, async (messages) => {
        for (const message of messages) seen.push(valueOf(message));
      });
      await publishKeyed(30, 5, 30);
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(60);
      await settle();
      expect(numerically(seen)).toEqual(range(60));
    });

    it('handleBatch through byKey: keeps the order of each key while keys run concurrently', async () => {
      const perKey = new Map<string, string[]>();
      await publishKeyed(40, 4);
      await collectBatches(
        `gk-${randomUUID()}`,
        byKey(async (message) => {
          await new Promise((resolve) => setTimeout(resolve, Number(valueOf(message)) % 3));
          perKey.set(keyOf(message), [...(perKey.get(keyOf(message)) ?? []), valueOf(message)]);
        }),
      );
      await publishKeyed(40, 4, 40);
      await expect.poll(() => [...perKey.values()].flat().length, { timeout: 20_000 }).toBe(80);
      for (const [key, values] of perKey) {
        const index = Number(key.slice(1));
        expect(values).toEqual(range(80).filter((value) => Number(value) % 4 === index));
      }
    });

    it('handleBatch with batches at once: every message once, each key in order, and batches of different partitions overlap where there are any', async () => {
      const perKey = new Map<string, string[]>();
      let inFlight = 0;
      let mostAtOnce = 0;
      await publishKeyed(60, 12);
      const consumer = await bus.consume({
        group: `gc-${randomUUID()}`,
        topics: [topic],
        concurrentBatches: 3,
        handleBatch: async (messages) => {
          mostAtOnce = Math.max(mostAtOnce, ++inFlight);
          // Held a while, as the dispatcher's batches wait for their slowest POST.
          await new Promise((resolve) => setTimeout(resolve, 150));
          for (const message of messages) perKey.set(keyOf(message), [...(perKey.get(keyOf(message)) ?? []), valueOf(message)]);
          inFlight -= 1;
        },
      });
      consumers.push(consumer);
      await expect.poll(() => [...perKey.values()].flat().length, { timeout: 30_000 }).toBe(60);
      await settle();
      for (const [key, values] of perKey) {
        const index = Number(key.slice(1));
        expect(values).toEqual(range(60).filter((value) => Number(value) % 12 === index));
      }
      // Twelve keys fall in more than one of a broker's partitions; a bus without partitions hands one batch at a time.
      if (features.partitions) expect(mostAtOnce).toBeGreaterThan(1);
      else expect(mostAtOnce).toBe(1);
      expect(mostAtOnce).toBeLessThanOrEqual(3);
    });

    it('handleBatch: a batch that failed is handed over again, then the offsets move on (at-least-once, no loss)', async () => {
      const failedOffsets: string[] = [];
      const handled: IncomingMessage[] = [];
      await publishKeyed(20, 3);
      await collectBatches(`gbf-${randomUUID()}`, async (messages) => {
        if (failedOffsets.length === 0) {
          failedOffsets.push(...messages.map((message) => message.offset));
          throw new Error('batch handler failed');
        }
        handled.push(...messages);
      });
      await expect.poll(() => handled.length, { timeout: 20_000 }).toBe(20);
      expect(failedOffsets.length).toBeGreaterThan(0);
      const handledOffsets = handled.map((message) => message.offset);
      for (const offset of failedOffsets) expect(handledOffsets).toContain(offset);
      await publishKeyed(5, 3, 20);
      await expect.poll(() => handled.length, { timeout: 20_000 }).toBe(25);
      await settle();
      expect(numerically(handled.map(valueOf))).toEqual(range(25));
    });

    it('handleBatch: a restarted member of the group resumes after the last committed batch', async () => {
      const group = `gbr-${randomUUID()}`;
      const seen: string[] = [];
      const record = async (messages: IncomingMessage[]) => void seen.push(...messages.map(valueOf));
      await publishKeyed(12, 3);
      const first = await collectBatches(group, record);
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(12);
      await first.stop();
      consumers.splice(consumers.indexOf(first), 1);
      await publishKeyed(6, 3, 12);
      await restart();
      await collectBatches(group, record);
      await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(18);
      await settle();
      expect(numerically(seen)).toEqual(range(18));
    });

    it.each(['handle', 'handleBatch'] as const)('%s: a member stopped while working keeps what it finished (committed on stop)', async (mode) => {
      const group = `gm-${randomUUID()}`;
      const seen: string[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const handle = async (message: IncomingMessage) => {
        seen.push(valueOf(message));
        if (valueOf(message) === '4') await gate;
      };
      const options: ConsumeOptions =
        mode === 'handle'
          ? { group, topics: [topic], handle }
          : { group, topics: [topic], handleBatch: async (messages) => void (await Promise.all(messages.map(handle))) };
      await publishN(10);
      const first = await bus.consume(options);
      await expect.poll(() => seen.includes('4'), { timeout: 20_000 }).toBe(true);
      const stopping = first.stop();
      setTimeout(release, 200);
      await stopping;
      const before = seen.length;
      await restart();
      const second = await bus.consume(options);
      consumers.push(second);
      await publishN(1, 'k', 10);
      await expect.poll(() => seen.includes('10'), { timeout: 30_000 }).toBe(true);
      await settle();
      // Whatever the first member finished is not handed over again.
      expect(numerically(seen)).toEqual(range(11));
      expect(before).toBeGreaterThanOrEqual(5);
    });

    it('consume() refuses both handle and handleBatch, or neither', async () => {
      const handle = async () => {};
      const handleBatch = async () => {};
      const base: ConsumeOptions = { group: `gx-${randomUUID()}`, topics: [topic] };
      await expect(bus.consume({ ...base, handle, handleBatch })).rejects.toThrow(/handle/);
      await expect(bus.consume(base)).rejects.toThrow(/handle/);
    });

    it('shares the work between two members of one group without doing it twice', async () => {
      const group = `gs-${randomUUID()}`;
      const seen: string[] = [];
      await collect(group, seen);
      await collect(group, seen);
      await publish(Array.from({ length: 20 }, (_, i) => ({ key: `k${i % 4}`, value: String(i) })));
      await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(20);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([...seen].sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    });
  });
};

import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byKey } from './by-key.ts';
import type { Bus, ConsumeOptions, Consumer, IncomingMessage } from './port.ts';

/**
 * The contract every bus adapter must pass. `makeBus` may be called more than once per test
 * (a second instance stands for a restarted process) and must then reach the same messages.
 */
export const busContract = (adapterName: string, makeBus: () => Promise<Bus>): void => {
  describe(`bus contract: ${adapterName}`, () => {
    let bus: Bus;
    let topic: string;
    const consumers: Consumer[] = [];
    beforeEach(async () => {
      bus = await makeBus();
      topic = `contract.${randomUUID().slice(0, 8)}`;
    });
    afterEach(async () => {
      for (const consumer of consumers.splice(0)) await consumer.stop();
      await bus.close();
    });

    const publishN = (n: number, key = 'k', start = 0) =>
      bus.publish(Array.from({ length: n }, (_, i) => ({ topic, key, value: String(start + i) })));

    const collect = async (group: string, into: string[], target: Bus = bus, fail?: (m: IncomingMessage) => boolean) => {
      const consumer = await target.consume({
        group,
        topics: [topic],
        handle: async (message) => {
          if (fail?.(message)) throw new Error('handler failed');
          into.push(message.value);
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
            seen.push(message.value);
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
        if (message.value === '1' && !failedOnce) {
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
      await bus.close();
      bus = await makeBus();
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
      bus.publish(Array.from({ length: n }, (_, i) => ({ topic, key: `k${(start + i) % keys}`, value: String(start + i) })));

    const range = (n: number, start = 0) => Array.from({ length: n }, (_, i) => String(start + i));
    const numerically = (values: string[]) => [...values].sort((x, y) => Number(x) - Number(y));
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

    it('handleBatch: delivers every message once, including ones published later', async () => {
      const seen: string[] = [];
      await publishKeyed(30, 5);
      await collectBatches(`gb-${randomUUID()}`, async (messages) => {
        for (const message of messages) seen.push(message.value);
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
          await new Promise((resolve) => setTimeout(resolve, Number(message.value) % 3));
          perKey.set(message.key, [...(perKey.get(message.key) ?? []), message.value]);
        }),
      );
      await publishKeyed(40, 4, 40);
      await expect.poll(() => [...perKey.values()].flat().length, { timeout: 20_000 }).toBe(80);
      for (const [key, values] of perKey) {
        const index = Number(key.slice(1));
        expect(values).toEqual(range(80).filter((value) => Number(value) % 4 === index));
      }
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
      expect(numerically(handled.map((message) => message.value))).toEqual(range(25));
    });

    it('handleBatch: a restarted member of the group resumes after the last committed batch', async () => {
      const group = `gbr-${randomUUID()}`;
      const seen: string[] = [];
      const record = async (messages: IncomingMessage[]) => void seen.push(...messages.map((message) => message.value));
      await publishKeyed(12, 3);
      const first = await collectBatches(group, record);
      await expect.poll(() => seen.length, { timeout: 20_000 }).toBe(12);
      await first.stop();
      consumers.splice(consumers.indexOf(first), 1);
      await publishKeyed(6, 3, 12);
      await bus.close();
      bus = await makeBus();
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
        seen.push(message.value);
        if (message.value === '4') await gate;
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
      await bus.close();
      bus = await makeBus();
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
      await bus.publish(Array.from({ length: 20 }, (_, i) => ({ topic, key: `k${i % 4}`, value: String(i) })));
      await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(20);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([...seen].sort((x, y) => Number(x) - Number(y))).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    });
  });
};

import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bus, Consumer, IncomingMessage } from './port.ts';

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

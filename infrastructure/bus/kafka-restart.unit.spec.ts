import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { restartingConsumer, type CrashingConsumer } from './kafka-restart.ts';

/** A consumer as kafkajs shows it here: a crash event (kafkajs has already disconnected it) and disconnect. */
class FakeConsumer extends EventEmitter implements CrashingConsumer {
  readonly events = { CRASH: 'consumer.crash' as const };
  disconnected = 0;
  async disconnect() {
    this.disconnected += 1;
  }
  crash(restart: boolean) {
    this.emit(this.events.CRASH, { payload: { error: new Error('The coordinator is not aware of this member'), groupId: 'g', restart } });
  }
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await delay(5);
  expect(condition()).toBe(true);
};

describe('restartingConsumer', () => {
  const started: FakeConsumer[] = [];
  const setup = async (failStarts = 0) => {
    started.length = 0;
    const crashes: unknown[] = [];
    let failures = failStarts;
    const consumer = await restartingConsumer({
      create: () => new FakeConsumer(),
      run: async (fake) => {
        started.push(fake);
        if (started.length > 1 && failures-- > 0) throw new Error('broker not there yet');
      },
      onCrash: (error) => crashes.push(error),
      backOffMs: () => 1,
    });
    return { consumer, crashes };
  };

  it('leaves a crash kafkajs restarts itself to kafkajs', async () => {
    const { consumer, crashes } = await setup();
    started[0].crash(true);
    await delay(20);
    expect(started).toHaveLength(1);
    expect(crashes).toEqual([]);
    await consumer.stop();
  });

  it('replaces a consumer kafkajs gave up on, and keeps trying while the replacement cannot start', async () => {
    const { consumer, crashes } = await setup(2);
    started[0].crash(false);
    // Two failed starts, then one that runs.
    await until(() => started.length === 4);
    expect(consumer.current()).toBe(started[3]);
    // The crashed one and the two failed starts were disconnected; the running one was not.
    expect(started.map((fake) => fake.disconnected)).toEqual([1, 1, 1, 0]);
    expect(crashes).toHaveLength(3);
    // A crash of a consumer already replaced is not acted on again.
    started[0].crash(false);
    await delay(20);
    expect(started).toHaveLength(4);
    await consumer.stop();
    expect(started[3].disconnected).toBe(1);
  });

  it('stops for good: a crash after stop starts nothing', async () => {
    const { consumer } = await setup();
    await consumer.stop();
    started[0].crash(false);
    await delay(20);
    expect(started).toHaveLength(1);
  });
});

import { setTimeout as delay } from 'node:timers/promises';

/** What is needed of a kafkajs consumer here: its crash event and a way to leave. */
export type CrashingConsumer = {
  events: { CRASH: 'consumer.crash' };
  on(event: 'consumer.crash', listener: (event: { payload: { error: Error; groupId: string; restart: boolean } }) => void): unknown;
  disconnect(): Promise<void>;
};

export type RestartOptions<C extends CrashingConsumer> = {
  /** A new consumer of the group (kafkajs cannot run one again once it gave up on it). */
  create: () => C;
  /** Connects, subscribes and runs it. */
  run: (consumer: C) => Promise<void>;
  /** Told of each consumer kafkajs gave up on, and of each failed start of its replacement. */
  onCrash?: (error: unknown) => void;
  backOffMs?: (attempt: number) => number;
};

const defaultBackOff = (attempt: number) => Math.min(10_000, 500 * 2 ** Math.min(attempt - 1, 5));

/**
 * A group's consumer that does not stay down. kafkajs restarts a crashed consumer only when the
 * error is retriable: a non-retriable one — "The coordinator is not aware of this member" after the
 * broker was frozen past the session timeout, "Failed to find group coordinator" (kafkajs issue
 * #1630) — leaves it disconnected for good while the process goes on looking healthy. Such a
 * consumer is replaced here by a new one of the same group (the group's committed offsets say where
 * it resumes), with back-off between failed starts, until `stop`.
 */
export const restartingConsumer = async <C extends CrashingConsumer>(
  options: RestartOptions<C>,
): Promise<{ current: () => C; stop: () => Promise<void> }> => {
  const backOff = options.backOffMs ?? defaultBackOff;
  let stopped = false;
  let current: C;

  const start = async (): Promise<void> => {
    const consumer = options.create();
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || stopped || consumer !== current) return;
      options.onCrash?.(payload.error);
      void replace(consumer);
    });
    current = consumer;
    try {
      await options.run(consumer);
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  };

  const replace = async (crashed: C): Promise<void> => {
    await crashed.disconnect().catch(() => undefined);
    for (let attempt = 1; !stopped; attempt++) {
      await delay(backOff(attempt));
      if (stopped) return;
      try {
        await start();
        if (stopped) await current.disconnect().catch(() => undefined);
        return;
      } catch (error) {
        options.onCrash?.(error);
      }
    }
  };

  await start();
  return {
    current: () => current,
    stop: async () => {
      stopped = true;
      await current.disconnect();
    },
  };
};

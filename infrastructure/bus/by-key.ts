import type { IncomingMessage } from './port.ts';

export type ByKeyOptions = {
  /** How many keys are worked on at once (default 64). */
  concurrency?: number;
};

const DEFAULT_CONCURRENCY = 64;

/** The batch's messages grouped by key, keys in order of first appearance, each key's in bus order. */
const groupByKey = (messages: IncomingMessage[]): IncomingMessage[][] => {
  const groups = new Map<string, IncomingMessage[]>();
  for (const message of messages) {
    const group = groups.get(message.key);
    if (group) group.push(message);
    else groups.set(message.key, [message]);
  }
  return [...groups.values()];
};

/**
 * Turns a per-message handler into a `handleBatch` for `Bus.consume`: the messages of different
 * keys are handled concurrently (at most `concurrency` keys at a time), the messages of one key one
 * after the other in bus order, so one aggregate's events keep their order while a batch costs
 * about as many event-loop turns as its longest key instead of one per message.
 *
 * If a message fails, its key's later messages are not started (they would overtake it), no new
 * key is started (the whole batch is handed over again anyway), the handlers already running are
 * let settle, and then the batch rejects with the first error.
 */
export const byKey = (
  handle: (message: IncomingMessage) => Promise<void>,
  options: ByKeyOptions = {},
): ((messages: IncomingMessage[]) => Promise<void>) => {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`byKey: concurrency must be a positive integer, got ${concurrency}`);

  return async (messages) => {
    const groups = groupByKey(messages);
    const errors: unknown[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (errors.length === 0 && next < groups.length) {
        const group = groups[next++];
        for (const message of group) {
          if (errors.length > 0) return;
          try {
            await handle(message);
          } catch (error) {
            errors.push(error);
            return;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker));
    if (errors.length > 0) throw errors[0];
  };
};

import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel, type Admin, type Batch, type EachBatchPayload, type Consumer as KafkaConsumer, type KafkaMessage, type Producer } from 'kafkajs';
import { consumeHandler, type Broker, type ConsumeOptions, type Consumer, type IncomingMessage, type OutgoingMessage } from './port.ts';
import { restartingConsumer } from './kafka-restart.ts';
import { coalesce } from '../coalesce.ts';
import { errorChain } from '../error-chain.ts';

export type KafkaBusOptions = {
  brokers: string[];
  clientId?: string;
  /** Partitions for topics this adapter creates. */
  partitions?: number;
  /** Prefix of every topic and consumer group, so several deployments can share a cluster. */
  namespace?: string;
};

/** At most this many messages of a fetched partition batch go to one `handleBatch` call. */
const MAX_HANDLE_BATCH = 500;
/** The longest a fetch waits at the broker for a message (see consume). */
const KAFKA_FETCH_MAX_WAIT_MS = 1_000;

const backOffMs = (failures: number): number => Math.min(5000, 50 * 2 ** Math.min(failures, 7));

/** Protocol errors after which an idempotent producer's state no longer matches the broker's. */
const STALE_PRODUCER_ERRORS = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH']);

/** The error, or one it wraps (kafkajs wraps the last protocol error once its retries run out), names a stale producer. */
export const staleProducer = (error: unknown): boolean => {
  for (const { type } of errorChain(error, { via: ['originalError', 'cause'] })) if (typeof type === 'string' && STALE_PRODUCER_ERRORS.has(type)) return true;
  return false;
};

/**
 * The bus on Kafka (kafkajs). Topics are created on first use (per stream category); messages
 * are keyed by stream so one aggregate's events land on one partition, in order. The producer is
 * idempotent and every send is awaited (acks from all in-sync replicas) before publish resolves.
 * Consumers run eachBatch on each fetched partition batch. `handle` gets its messages one by one,
 * each offset resolved after its handler resolved and the batch's offsets committed in one round
 * trip when the batch ends (or the consumer stops, or a handler starts failing): a crash before
 * that redelivers them — at-least-once. `handleBatch` gets the batch in chunks of at most
 * MAX_HANDLE_BATCH, one commit per chunk after the handler resolved (the commits of chunks that end
 * while another is on its way go as one request). A failing handler is retried
 * with back-off while the consumer keeps heartbeating, so long work does not cost the group
 * membership. A consumer kafkajs gives up on (a crash it does not restart from) is replaced by a
 * new one of the group (kafka-restart.ts).
 */
export const kafkaBus = async (options: KafkaBusOptions): Promise<Broker> => {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'animal-data',
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    retry: { retries: 8 },
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  const newProducer = (): Producer => kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  let producer = newProducer();
  await producer.connect();
  /**
   * After a broker restart an idempotent producer may find its sequence numbers out of step with
   * the broker's (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID, INVALID_PRODUCER_EPOCH), and
   * kafkajs keeps failing every send with it: the producer is replaced (a new producer id), and the
   * caller's retry goes through it. A batch that did land before may then land twice (at-least-once).
   */
  let replacing: Promise<void> | null = null;
  const replaceProducer = (stale: Producer): Promise<void> => {
    replacing ??= (async () => {
      try {
        if (producer !== stale) return;
        await stale.disconnect().catch(() => undefined);
        const fresh = newProducer();
        await fresh.connect();
        producer = fresh;
      } finally {
        replacing = null;
      }
    })();
    return replacing;
  };
  const knownTopics = new Set(await admin.listTopics());
  const consumers = new Set<Consumer>();
  const namespace = options.namespace ? `${options.namespace}.` : '';
  const real = (topic: string) => `${namespace}${topic}`;

  /**
   * Creates missing topics and waits until every partition has a leader. kafkajs' own
   * `waitForLeaders` gives up on KRaft brokers that briefly answer "unknown topic" right after the
   * creation, so the wait is done here by polling the metadata (bounded).
   */
  const ensureTopics = async (topics: string[]) => {
    const missing = [...new Set(topics)].filter((topic) => !knownTopics.has(topic));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((topic) => ({ topic, numPartitions: options.partitions ?? 3, replicationFactor: -1 })),
    });
    for (let attempt = 0; ; attempt++) {
      try {
        const { topics: metadata } = await admin.fetchTopicMetadata({ topics: missing });
        if (metadata.every((topic) => topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0))) break;
      } catch (error) {
        if (attempt >= 100) throw error;
      }
      if (attempt >= 100) throw new Error(`topics ${missing.join(', ')} have no leader after 10 s`);
      await delay(100);
    }
    for (const topic of missing) knownTopics.add(topic);
  };

  const publish = async (messages: OutgoingMessage[]): Promise<void> => {
    if (messages.length === 0) return;
    await ensureTopics(messages.map((message) => real(message.topic)));
    const byTopic = new Map<string, { key: string; value: string }[]>();
    for (const message of messages) {
      const list = byTopic.get(real(message.topic)) ?? [];
      list.push({ key: message.key, value: message.value });
      byTopic.set(real(message.topic), list);
    }
    const sending = producer;
    try {
      await sending.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })) });
    } catch (error) {
      if (staleProducer(error)) await replaceProducer(sending).catch(() => undefined);
      throw error;
    }
  };

  /** Groups consumed here (by their logical names) and their topics, for lag(). */
  const groupTopics = new Map<string, string[]>();

  const consume = async (consumeOptions: ConsumeOptions): Promise<Consumer> => {
    const handler = consumeHandler(consumeOptions);
    groupTopics.set(consumeOptions.group, [...new Set([...(groupTopics.get(consumeOptions.group) ?? []), ...consumeOptions.topics])]);
    const topics = consumeOptions.topics.map(real);
    await ensureTopics(topics);
    // maxWaitTimeInMs: how long the broker holds an empty fetch open. A stop waits for the fetch in
    // flight, so kafkajs' default (5 s) made every graceful shutdown of an idle process take 5 s —
    // more than SHUTDOWN_TIMEOUT_MS allows once a few consumers stop one after another under load.
    // A message still comes back as soon as it is there: this only bounds the idle wait.
    const newConsumer = () =>
      kafka.consumer({ groupId: real(consumeOptions.group), sessionTimeout: 30_000, heartbeatInterval: 3_000, maxWaitTimeInMs: KAFKA_FETCH_MAX_WAIT_MS });
    /** The group's consumer of the moment: replaced when kafkajs gives up on one (kafka-restart.ts). */
    let consumer: KafkaConsumer;
    let stopped = false;

    const aborted = (payload: EachBatchPayload): boolean => !payload.isRunning() || payload.isStale() || stopped;

    type PartitionOffset = { topic: string; partition: number; offset: string };
    /**
     * The group's offset commits, through the consumer of the moment (commitOffsets retries). The
     * commits of batches that end while one is on its way — the partitions of one fetch, handled at
     * once (`concurrentBatches`) — go together as ONE commit request when it is back, the highest
     * offset of each partition; each caller resolves or fails with the request that carried its
     * offset. Under load, one round trip to the broker instead of one per partition batch.
     */
    const commitOffsets = coalesce(
      (_group: null, offsets: Map<string, PartitionOffset>) => consumer.commitOffsets([...offsets.values()]),
      (queued, next) => {
        const merged = new Map(queued);
        for (const [key, entry] of next) {
          const held = merged.get(key);
          if (!held || BigInt(entry.offset) > BigInt(held.offset)) merged.set(key, entry);
        }
        return merged;
      },
    );

    const toMessage = (batch: Batch, raw: KafkaMessage): IncomingMessage => ({
      topic: batch.topic.slice(namespace.length),
      key: raw.key?.toString() ?? '',
      value: raw.value?.toString() ?? '',
      offset: `${batch.partition}:${raw.offset}`,
    });

    /**
     * Commits the partition's offset past `offset`. Normally through consumer.commitOffsets, which
     * retries. While stopping that one silently does nothing, so the batch's own commit (one
     * attempt, no running check) is used: the group membership lasts until eachBatch returned.
     * `quiet` (best effort, e.g. while stopping or failing) also makes one attempt and swallows its
     * failure: the messages are then redelivered. A stale batch (the partition was sought or handed
     * over) commits nothing.
     */
    const commitThrough = async (payload: EachBatchPayload, offset: string, quiet: boolean): Promise<boolean> => {
      if (payload.isStale()) return false;
      const { topic, partition } = payload.batch;
      const next = (BigInt(offset) + 1n).toString();
      try {
        if (payload.isRunning() && !quiet) await commitOffsets(null, new Map([[`${topic}:${partition}`, { topic, partition, offset: next }]]));
        else await payload.commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset: next }] }] });
        return true;
      } catch (error) {
        if (quiet) return false;
        throw error;
      }
    };

    /**
     * Runs `work` until it resolves, backing off and heartbeating between attempts; resolves false
     * if the consumer stops or loses the partition first. `beforeBackOff` runs once, at the first
     * failure.
     */
    const untilDone = async (
      payload: EachBatchPayload,
      work: () => Promise<void>,
      first: IncomingMessage,
      beforeBackOff?: () => Promise<unknown>,
    ): Promise<boolean> => {
      for (let failures = 1; ; failures++) {
        try {
          await work();
          return true;
        } catch (error) {
          consumeOptions.onError?.(error, first);
          if (aborted(payload)) return false;
          if (failures === 1) await beforeBackOff?.();
          await delay(backOffMs(failures));
          if (aborted(payload)) return false;
          await payload.heartbeat();
        }
      }
    };

    /** `handle`: one message at a time, one commit for the batch's handled messages. */
    const eachMessage = async (payload: EachBatchPayload, handle: (message: IncomingMessage) => Promise<void>): Promise<void> => {
      const { batch, resolveOffset, heartbeat } = payload;
      let handled: string | null = null;
      let committed: string | null = null;
      const commitHandled = async (quiet: boolean) => {
        if (handled === null || handled === committed) return;
        const offset = handled;
        if (await commitThrough(payload, offset, quiet)) committed = offset;
      };
      try {
        for (const raw of batch.messages) {
          if (aborted(payload)) break;
          const message = toMessage(batch, raw);
          // Before backing off, commit what this batch already handled, so a retry loop on a
          // failing message does not leave the earlier ones uncommitted.
          if (!(await untilDone(payload, () => handle(message), message, () => commitHandled(true)))) break;
          resolveOffset(raw.offset);
          handled = raw.offset;
          await heartbeat();
        }
      } catch (error) {
        await commitHandled(true);
        throw error;
      }
      await commitHandled(aborted(payload));
    };

    /** `handleBatch`: the batch in chunks of at most MAX_HANDLE_BATCH, one commit per chunk. */
    const eachChunk = async (payload: EachBatchPayload, handleBatch: (messages: IncomingMessage[]) => Promise<void>): Promise<void> => {
      const { batch, resolveOffset, heartbeat } = payload;
      for (let start = 0; start < batch.messages.length; start += MAX_HANDLE_BATCH) {
        if (aborted(payload)) return;
        const raws = batch.messages.slice(start, start + MAX_HANDLE_BATCH);
        const messages = raws.map((raw) => toMessage(batch, raw));
        if (!(await untilDone(payload, () => handleBatch(messages), messages[0]))) return;
        const last = raws[raws.length - 1].offset;
        resolveOffset(last);
        await commitThrough(payload, last, aborted(payload));
        await heartbeat();
      }
    };

    const running = await restartingConsumer({
      create: () => (consumer = newConsumer()),
      run: async (started) => {
        await started.connect();
        for (const topic of topics) await started.subscribe({ topic, fromBeginning: true });
        await started.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: consumeOptions.concurrentBatches ?? 1,
          eachBatch: (payload) => (handler.kind === 'batch' ? eachChunk(payload, handler.handleBatch) : eachMessage(payload, handler.handle)),
        });
      },
      onCrash: (error) => consumeOptions.onCrash?.(error),
    });
    const handle: Consumer = {
      stop: async () => {
        stopped = true;
        consumers.delete(handle);
        await running.stop();
      },
    };
    consumers.add(handle);
    return handle;
  };

  /** Per group: end offsets of its topics' partitions minus its committed offsets (uncommitted: from the low watermark). */
  const lag = async () => {
    const result = [];
    for (const [group, topics] of groupTopics) {
      let messages = 0;
      const committed = await admin.fetchOffsets({ groupId: real(group), topics: topics.map(real) });
      for (const topic of topics) {
        const ends = await admin.fetchTopicOffsets(real(topic));
        const partitions = committed.find((entry) => entry.topic === real(topic))?.partitions ?? [];
        for (const end of ends) {
          const done = Number(partitions.find((partition) => partition.partition === end.partition)?.offset ?? '-1');
          const from = done >= 0 ? done : Number(end.low);
          messages += Math.max(0, Number(end.high) - from);
        }
      }
      result.push({ group, topics, messages });
    }
    return result;
  };

  return {
    publish,
    consume,
    lag,
    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      await producer.disconnect();
      await admin.disconnect();
    },
  };
};

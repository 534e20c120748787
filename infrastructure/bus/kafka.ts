import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel, type Admin, type Consumer as KafkaConsumer, type Producer } from 'kafkajs';
import type { Bus, ConsumeOptions, Consumer, IncomingMessage, OutgoingMessage } from './port.ts';

export type KafkaBusOptions = {
  brokers: string[];
  clientId?: string;
  /** Partitions for topics this adapter creates. */
  partitions?: number;
  /** Prefix of every topic and consumer group, so several deployments can share a cluster. */
  namespace?: string;
};

/**
 * The bus on Kafka (kafkajs). Topics are created on first use (per stream category); messages
 * are keyed by stream so one aggregate's events land on one partition, in order. The producer is
 * idempotent and every send is awaited (acks from all in-sync replicas) before publish resolves.
 * Consumers run eachBatch: each message is handled, then its offset committed (after the work is
 * recorded); a failing handler is retried with back-off while the consumer keeps heartbeating,
 * so long work does not cost the group membership.
 */
export const kafkaBus = async (options: KafkaBusOptions): Promise<Bus> => {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'animal-data',
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    retry: { retries: 8 },
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const knownTopics = new Set(await admin.listTopics());
  const consumers = new Set<KafkaConsumer>();
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
    await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, list]) => ({ topic, messages: list })) });
  };

  const consume = async (consumeOptions: ConsumeOptions): Promise<Consumer> => {
    const topics = consumeOptions.topics.map(real);
    await ensureTopics(topics);
    const consumer = kafka.consumer({ groupId: real(consumeOptions.group), sessionTimeout: 30_000, heartbeatInterval: 3_000 });
    consumers.add(consumer);
    let stopped = false;
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }) => {
        for (const raw of batch.messages) {
          if (!isRunning() || isStale() || stopped) return;
          const message: IncomingMessage = {
            topic: batch.topic.slice(namespace.length),
            key: raw.key?.toString() ?? '',
            value: raw.value?.toString() ?? '',
            offset: `${batch.partition}:${raw.offset}`,
          };
          for (let failures = 0; ; failures++) {
            try {
              await consumeOptions.handle(message);
              break;
            } catch (error) {
              consumeOptions.onError?.(error, message);
              if (!isRunning() || isStale() || stopped) return;
              await delay(Math.min(5000, 50 * 2 ** Math.min(failures + 1, 7)));
              await heartbeat();
            }
          }
          resolveOffset(raw.offset);
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(raw.offset) + 1n).toString() }]);
          await heartbeat();
        }
        await commitOffsetsIfNecessary();
      },
    });
    return {
      stop: async () => {
        stopped = true;
        await consumer.disconnect();
        consumers.delete(consumer);
      },
    };
  };

  return {
    publish,
    consume,
    async close() {
      await Promise.all([...consumers].map((consumer) => consumer.disconnect()));
      consumers.clear();
      await producer.disconnect();
      await admin.disconnect();
    },
  };
};

import { BSON } from 'mongodb';
import { Kafka, logLevel } from 'kafkajs';
import { mongoClient } from '../infrastructure/mongo-client.ts';

/**
 * What the production adapters hold, as raw bytes (latin1 text) to search for secrets that must
 * never be stored in plain text: every document of a MongoDB database as BSON (read models, write
 * positions, checkpoints, GridFS files and chunks), and every message of a Kafka namespace's topics.
 */

/** Every document of every collection of the database in `url`, one BSON text per collection. */
export const mongoDatabaseBytes = async (url: string): Promise<Map<string, string>> => {
  const client = mongoClient(url);
  try {
    const db = client.db(new URL(url).pathname.slice(1) || 'animal_data');
    const out = new Map<string, string>();
    for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
      const documents = await db.collection(name).find({}).toArray();
      out.set(name, documents.map((document) => Buffer.from(BSON.serialize(document)).toString('latin1')).join('\n'));
    }
    return out;
  } finally {
    await client.close();
  }
};

/**
 * Every message (key, value and headers) of the topics named `<namespace>.…`, read from the start
 * up to each partition's end as it was when called: one text per topic.
 */
export const kafkaTopicBytes = async (brokers: string, namespace: string): Promise<Map<string, string>> => {
  const kafka = new Kafka({ clientId: 'stored-bytes', brokers: brokers.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${namespace}.`));
  const remaining = new Map<string, bigint>();
  for (const topic of topics) {
    for (const { partition, high } of await admin.fetchTopicOffsets(topic)) {
      if (BigInt(high) > 0n) remaining.set(`${topic}/${partition}`, BigInt(high));
    }
  }
  await admin.disconnect();
  const out = new Map<string, string>(topics.map((topic) => [topic, '']));
  if (remaining.size === 0) return out;
  const consumer = kafka.consumer({ groupId: `stored-bytes-${Date.now()}-${Math.random().toString(36).slice(2)}` });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kafka topics of ${namespace} not read to their end within 30 s`)), 30_000);
    void consumer
      .run({
        eachMessage: async ({ topic, partition, message }) => {
          const headers = Object.entries(message.headers ?? {}).map(([name, value]) => `${name}=${String(value)}`);
          out.set(topic, `${out.get(topic)}\n${message.key?.toString('latin1') ?? ''} ${message.value?.toString('latin1') ?? ''} ${headers.join(' ')}`);
          const id = `${topic}/${partition}`;
          const end = remaining.get(id);
          if (end !== undefined && BigInt(message.offset) + 1n >= end) remaining.delete(id);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return out;
};

import { join } from 'node:path';
import { assertDeploymentSecrets, type Config } from './config.ts';
import type { EventStore } from './event-store/port.ts';
import type { ReadStore } from './read-store/port.ts';
import type { Broker, Bus } from './bus/port.ts';
import type { Mailer } from './mail/port.ts';
import { inMemoryWritePositions, type WritePositions } from './consistency/write-positions.ts';
import { sqliteEventStore } from './event-store/sqlite.ts';
import { embeddedReadStore } from './read-store/embedded.ts';
import { eventLogBus } from './bus/event-log.ts';
import { RELAY_CHECKPOINT } from './bus/envelope.ts';
import { portTail } from './event-store/tail.ts';
import { fileMailer } from './mail/file.ts';
import type { SecretBox } from './secrets/secret-box.ts';
import { openSecretBox } from './secrets/secrets-key.ts';
import type { BlobStore } from './blobs/port.ts';
import { fileBlobStore } from './blobs/file.ts';

export type Adapters = {
  eventStore: EventStore;
  readStore: ReadStore;
  /** What consumers read: the broker when one is configured, else the event log itself (bus/event-log.ts). */
  bus: Bus;
  /** The broker the relay feeds (Kafka), null on the embedded bus, which needs no relay. */
  broker: Broker | null;
  blobs: BlobStore;
  mailer: Mailer;
  /** Encrypts webhook signing secrets (SECRETS_KEY, or DATA_DIR/secrets.key on the embedded runtime). */
  secrets: SecretBox;
  writePositions: WritePositions;
  /** Which adapter serves each port, for logs and /ready. */
  kinds: { eventStore: string; readStore: string; bus: string; blobs: string; mailer: string };
  close: () => Promise<void>;
};

/**
 * Chooses an adapter per port from the configuration: EVENTSTORE_URL → EventStoreDB, MONGO_URL →
 * MongoDB read models, GridFS blobs and shared write positions, KAFKA_BROKERS → Kafka, SMTP_URL →
 * SMTP. Each port without its variable runs on its embedded default under DATA_DIR. With any
 * shared adapter, SECRETS_KEY is required (config.ts assertDeploymentSecrets). The production
 * adapters are imported only when configured: their clients (gRPC and protobuf code, the MongoDB
 * driver, kafkajs, nodemailer) would otherwise take memory in every embedded process.
 */
export const openAdapters = async (config: Config): Promise<Adapters> => {
  // Before anything is opened: a process on shared adapters without SECRETS_KEY refuses to start.
  assertDeploymentSecrets(config);
  const closers: (() => Promise<void>)[] = [];
  const embeddedLog = config.eventStoreUrl ? null : sqliteEventStore(join(config.dataDir, 'events.db'));
  const eventStore: EventStore = embeddedLog ?? (await import('./event-store/eventstoredb.ts')).eventStoreDbEventStore(config.eventStoreUrl as string);
  const readStore = config.mongoUrl
    ? await (await import('./read-store/mongo.ts')).mongoReadStore(config.mongoUrl)
    : embeddedReadStore(join(config.dataDir, 'read-models.db'), { maxResidentDocs: config.readStoreResidentDocs });
  const broker = config.kafkaBrokers
    ? await (await import('./bus/kafka.ts')).kafkaBus({ brokers: config.kafkaBrokers, namespace: config.kafkaNamespace })
    : null;
  // Without a broker, consumers read the log itself; `bus.db` keeps their offsets (and is
  // upgraded once from the copying bus, which needs where its relay had got to).
  const bus: Bus =
    broker ??
    (await eventLogBus(embeddedLog?.tail ?? portTail(eventStore), join(config.dataDir, 'bus.db'), {
      legacyRelayCheckpoint: () => readStore.getCheckpoint(RELAY_CHECKPOINT),
    }));
  const blobs = config.mongoUrl ? await (await import('./blobs/gridfs.ts')).gridFsBlobStore(config.mongoUrl) : fileBlobStore(join(config.dataDir, 'blobs'));
  let writePositions: WritePositions = inMemoryWritePositions();
  if (config.mongoUrl) {
    const shared = await (await import('./consistency/mongo-write-positions.ts')).mongoWritePositions(config.mongoUrl);
    closers.push(shared.close);
    writePositions = shared;
  }
  const mailer = config.smtpUrl ? (await import('./mail/smtp.ts')).smtpMailer(config.smtpUrl, config.mailFrom) : fileMailer(join(config.dataDir, 'mail'));
  return {
    eventStore,
    readStore,
    bus,
    broker,
    blobs,
    mailer,
    secrets: await openSecretBox(config),
    writePositions,
    kinds: {
      eventStore: config.eventStoreUrl ? 'eventstoredb' : 'sqlite',
      readStore: config.mongoUrl ? 'mongodb' : 'embedded',
      bus: config.kafkaBrokers ? 'kafka' : 'event-log',
      blobs: config.mongoUrl ? 'gridfs' : 'files',
      mailer: config.smtpUrl ? 'smtp' : 'files',
    },
    close: async () => {
      await bus.close();
      await readStore.close();
      await eventStore.close();
      await blobs.close();
      for (const close of closers) await close();
    },
  };
};

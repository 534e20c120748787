import { join } from 'node:path';
import type { Config } from './config.ts';
import type { EventStore } from './event-store/port.ts';
import type { ReadStore } from './read-store/port.ts';
import type { Bus } from './bus/port.ts';
import type { Mailer } from './mail/port.ts';
import { inMemoryWritePositions, type WritePositions } from './consistency/write-positions.ts';
import { sqliteEventStore } from './event-store/sqlite.ts';
import { embeddedReadStore } from './read-store/embedded.ts';
import { inProcessBus } from './bus/in-process.ts';
import { fileMailer } from './mail/file.ts';

export type Adapters = {
  eventStore: EventStore;
  readStore: ReadStore;
  bus: Bus;
  mailer: Mailer;
  writePositions: WritePositions;
  /** Which adapter serves each port, for logs and /ready. */
  kinds: { eventStore: string; readStore: string; bus: string };
  close: () => Promise<void>;
};

/**
 * Chooses an adapter per port from the configuration. Only the embedded adapters exist so far;
 * asking for a production one fails loudly instead of silently running embedded.
 */
export const openAdapters = async (config: Config): Promise<Adapters> => {
  const unsupported = [
    config.eventStoreUrl && 'EVENTSTORE_URL',
    config.mongoUrl && 'MONGO_URL',
    config.kafkaBrokers && 'KAFKA_BROKERS',
  ].filter(Boolean);
  if (unsupported.length > 0) {
    throw new Error(`${unsupported.join(', ')} set, but the production adapters are not part of this build yet`);
  }
  const eventStore = sqliteEventStore(join(config.dataDir, 'events.db'));
  const readStore = embeddedReadStore(join(config.dataDir, 'read-models.db'));
  const bus = inProcessBus(join(config.dataDir, 'bus.db'));
  return {
    eventStore,
    readStore,
    bus,
    mailer: fileMailer(join(config.dataDir, 'mail')),
    writePositions: inMemoryWritePositions(),
    kinds: { eventStore: 'sqlite', readStore: 'embedded', bus: 'in-process' },
    close: async () => {
      await bus.close();
      await readStore.close();
      await eventStore.close();
    },
  };
};

import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { busContract } from './bus.contract.ts';
import { kafkaBus } from './kafka.ts';

/** Runs when KAFKA_BROKERS names a broker (CI starts a single-node KRaft broker). */
const brokers = process.env.KAFKA_BROKERS?.split(',');
describe.skipIf(!brokers)('Kafka bus', () => {
  busContract('Kafka', async () => kafkaBus({ brokers: brokers as string[], clientId: `contract-${randomUUID().slice(0, 6)}` }));
});

import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { busContract } from './bus.contract.ts';
import { toBusMessage } from './envelope.ts';
import { kafkaBus } from './kafka.ts';

/** Runs when KAFKA_BROKERS names a broker (CI starts a single-node KRaft broker). */
const brokers = process.env.KAFKA_BROKERS?.split(',');

/** Events reach a broker as the relay sends them: recorded events as bus messages (positions made up here). */
let position = 0n;
const revisions = new Map<string, bigint>();

describe.skipIf(!brokers)('Kafka bus', () => {
  busContract('Kafka', async () => {
    const bus = await kafkaBus({ brokers: brokers as string[], clientId: `contract-${randomUUID().slice(0, 6)}` });
    return {
      bus,
      append: (events) =>
        bus.publish(
          events.map(({ streamName, value }) => {
            const revision = revisions.get(streamName) ?? 0n;
            revisions.set(streamName, revision + 1n);
            position += 1n;
            return toBusMessage({
              id: randomUUID(),
              type: 'ContractEvent',
              streamName,
              revision,
              position,
              data: { value },
              metadata: { account_id: null, correlation_id: null, causation_id: null, request_id: null, actor: 'contract', timestamp: new Date().toISOString(), schema_version: 1 },
            });
          }),
        ),
      close: () => bus.close(),
    };
  }, { partitions: true });
});

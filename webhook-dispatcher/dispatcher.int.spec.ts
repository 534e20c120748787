import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { consumeHandler, type Bus, type ConsumeOptions, type IncomingMessage, type OutgoingMessage } from '../infrastructure/bus/port.ts';
import { toBusMessage } from '../infrastructure/bus/envelope.ts';
import { aesGcmSecretBox } from '../infrastructure/secrets/secret-box.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import { startReceiver, verifySignature, waitUntil } from '../test/webhook-receiver.ts';
import { deliveryIdFor } from './event-mapping.ts';
import { startDispatcher } from './index.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A bus the test hands messages to, batch by batch, as a bus redelivers after a crash before its
 * offsets were committed: `handOver` resolves once every group's handler finished the batch.
 */
const handOverBus = () => {
  const groups: ConsumeOptions[] = [];
  let offset = 0;
  const bus: Bus & { handOver: (messages: OutgoingMessage[]) => Promise<void> } = {
    async consume(options) {
      consumeHandler(options);
      groups.push(options);
      return { stop: async () => void groups.splice(groups.indexOf(options), 1) };
    },
    async close() {
      groups.length = 0;
    },
    async handOver(messages) {
      const incoming: IncomingMessage[] = messages.map((message) => ({ ...message, offset: String(++offset) }));
      for (const group of groups) {
        const mine = incoming.filter((message) => group.topics.includes(message.topic));
        if (mine.length === 0) continue;
        const handler = consumeHandler(group);
        if (handler.kind === 'batch') await handler.handleBatch(mine);
        else for (const message of mine) await handler.handle(message);
      }
    },
  };
  return bus;
};

const voteCast = (id: string, voteId: number, position: bigint): RecordedEvent => ({
  id,
  type: 'VoteCast',
  streamName: `vote-${voteId}`,
  revision: 0n,
  position,
  data: { vote_id: voteId, account_id: 'acc', image_id: 'img', sub_id: null, value: 1, country_code: null, ip_address: '192.0.2.1', created_at: '2026-01-01T00:00:00.000Z' },
  metadata: { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: '2026-01-01T00:00:00.000Z', schema_version: 1 },
});

describe('webhook dispatcher (embedded adapters, real receiver)', () => {
  it('records one event per delivery (its outcome), and sends nothing again when the bus hands the same events over again', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const bus = handOverBus();
    const secrets = aesGcmSecretBox(randomBytes(32));
    const receiver = await startReceiver(() => 204);
    const secret = `whsec_${randomBytes(32).toString('hex')}`;
    const metadata = { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
    await eventStore.append('webhook-w1', [
      {
        id: randomUUID(),
        type: 'WebhookEndpointRegistered',
        data: { webhook_id: 'w1', account_id: 'acc', url: receiver.url, description: '', enabled_events: ['vote.created'], signing_secret_encrypted: secrets.encrypt(secret, 'w1'), legacy_unsigned: false, registered_at: metadata.timestamp },
        metadata,
      },
    ]);
    const doc: WebhookDoc = {
      _id: 'w1', id: 'w1', account_id: 'acc', url: receiver.url, description: '', enabled_events: ['vote.created'], status: 'enabled',
      legacy_unsigned: false, consecutive_failures: 0, created_at: metadata.timestamp, disabled_at: null, secret_rotated_at: null,
    };
    await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(doc, 1n);
    await readStore.setCheckpoint('webhooks', 1_000n);
    await readStore.setCheckpoint('webhook_deliveries', 1_000_000n);

    const votes = Array.from({ length: 300 }, (_, i) => voteCast(randomUUID(), i + 1, BigInt(i + 2)));
    const dispatcher = await startDispatcher({
      bus, eventStore, readStore, secrets, mailer: { send: async () => undefined }, logger: pino({ level: 'silent' }),
      options: { allowPrivateTargets: true },
    });
    try {
      await bus.handOver(votes.map(toBusMessage));
      await receiver.waitFor(votes.length, 20_000);
      const first = receiver.received[0];
      expect(verifySignature(first.headers['x-webhook-signature'] as string, first.body, secret)).toBe(true);
      expect(new Set(receiver.received.map((request) => JSON.parse(request.body)._metadata.event_id))).toEqual(new Set(votes.map((vote) => vote.id)));

      // One event per delivery: its outcome, opening the stream with the delivery's details.
      const streams = await waitUntil(async () => {
        const read = await Promise.all(votes.map((vote) => eventStore.readStream(`webhookdelivery-${deliveryIdFor(vote.id, 'w1')}`)));
        return read.every((events) => events.length === 1) && read;
      }, 5000, 'every outcome recorded');
      const [event] = streams[0];
      expect(event.type).toBe('WebhookDeliveryAttempted');
      expect(event.data).toMatchObject({ attempt: 1, outcome: 'succeeded', status_code: 204, opened: { webhook_id: 'w1', event_type: 'vote.created' } });
      // A success after no failures writes nothing to the endpoint's stream.
      expect((await eventStore.readStream('webhook-w1')).map((recorded) => recorded.type)).toEqual(['WebhookEndpointRegistered']);

      // The same events handed over again (a crash before the bus offsets were committed): the
      // store already holds their deliveries, so none is sent again.
      await bus.handOver(votes.slice(0, 100).map(toBusMessage));
      await sleep(1500);
      expect(receiver.received).toHaveLength(votes.length);
    } finally {
      await dispatcher.stop();
      await receiver.close();
      await bus.close();
      await eventStore.close();
      await readStore.close();
    }
  }, 60_000);
});

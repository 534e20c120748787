import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { sqliteEventStore } from '../infrastructure/event-store/sqlite.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { consumeHandler, type Bus, type ConsumeOptions, type IncomingMessage, type OutgoingMessage } from '../infrastructure/bus/port.ts';
import { toBusMessage } from '../infrastructure/bus/envelope.ts';
import { aesGcmSecretBox } from '../infrastructure/secrets/secret-box.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import { Collections, type WebhookDeliveryDoc, type WebhookDoc } from '../contracts/read-models.ts';
import type { AttemptEntry } from '../domain/webhooks/delivery.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { startProjections } from '../projectors/runner.ts';
import { webhookDeliveriesProjection } from '../projectors/webhook-deliveries.ts';
import { startReceiver, verifySignature, waitUntil } from './webhook-receiver.ts';
import { deliveryIdFor } from '../webhook-dispatcher/event-mapping.ts';
import { startDispatcher } from '../webhook-dispatcher/index.ts';

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

/** An endpoint `w1` of account `acc` subscribed to vote.created, in its stream and in the endpoints read model. */
const registerEndpoint = async (eventStore: EventStore, readStore: ReadStore, url: string, encryptedSecret: string) => {
  const metadata = { account_id: 'acc', correlation_id: null, causation_id: null, request_id: null, actor: null, timestamp: new Date().toISOString(), schema_version: 1 };
  await eventStore.append('webhook-w1', [
    {
      id: randomUUID(),
      type: 'WebhookEndpointRegistered',
      data: { webhook_id: 'w1', account_id: 'acc', url, description: '', enabled_events: ['vote.created'], signing_secret_encrypted: encryptedSecret, legacy_unsigned: false, registered_at: metadata.timestamp },
      metadata,
    },
  ]);
  const doc: WebhookDoc = {
    _id: 'w1', id: 'w1', account_id: 'acc', url, description: '', enabled_events: ['vote.created'], status: 'enabled',
    legacy_unsigned: false, consecutive_failures: 0, created_at: metadata.timestamp, disabled_at: null, secret_rotated_at: null,
  };
  await readStore.collection<WebhookDoc>(Collections.webhooks).upsert(doc, 1n);
  await readStore.setCheckpoint('webhooks', 1_000_000n);
};

/** The attempt records in the store: the events of `webhookattempts-` streams. */
const attemptRecords = async (eventStore: EventStore) =>
  (await eventStore.readAll()).filter((event) => event.streamName.startsWith('webhookattempts-'));

const entriesOf = (records: Awaited<ReturnType<typeof attemptRecords>>): AttemptEntry[] =>
  records.flatMap((record) => (record.data as { attempts: AttemptEntry[] }).attempts);

/** The delivery log's documents of these votes' deliveries to w1, once every one shows as succeeded. */
const succeededInLog = (readStore: ReadStore, votes: RecordedEvent[]) => {
  const log = readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);
  return waitUntil(async () => {
    const found = await log.getMany(votes.map((vote) => deliveryIdFor(vote.id, 'w1')));
    return found.size === votes.length && [...found.values()].every((doc) => doc.status === 'succeeded') && found;
  }, 5000, 'every delivery in the log');
};

describe('webhook dispatcher (embedded adapters, real receiver)', () => {
  it('records attempts in attempt records (one event for many attempts), and sends nothing again when the bus hands the same events over again', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const bus = handOverBus();
    const secrets = aesGcmSecretBox(randomBytes(32));
    const receiver = await startReceiver(() => 204);
    const secret = `whsec_${randomBytes(32).toString('hex')}`;
    await registerEndpoint(eventStore, readStore, receiver.url, secrets.encrypt(secret, 'w1'));
    const projections = await startProjections(eventStore, readStore, [webhookDeliveriesProjection], pino({ level: 'silent' }));

    const votes = Array.from({ length: 300 }, (_, i) => voteCast(randomUUID(), i + 1, BigInt(i + 2)));
    const dispatcher = await startDispatcher({
      bus, eventStore, readStore, secrets, mailer: { send: async () => undefined }, logger: pino({ level: 'silent' }),
      // (No hand-off to the store by time: a receiver slow to start on a busy machine would park deliveries.)
      options: { allowPrivateTargets: true, handoffMs: 30_000 },
    });
    try {
      await bus.handOver(votes.map(toBusMessage));
      await receiver.waitFor(votes.length, 20_000);
      const first = receiver.received[0];
      expect(verifySignature(first.headers['x-webhook-signature'] as string, first.body, secret)).toBe(true);
      expect(new Set(receiver.received.map((request) => JSON.parse(request.body)._metadata.event_id))).toEqual(new Set(votes.map((vote) => vote.id)));

      // Every attempt is an entry of an attempt record: far fewer events than attempts, none on
      // the deliveries' own streams, each entry with its delivery, outcome, timing and signature.
      const records = await attemptRecords(eventStore);
      const entries = entriesOf(records);
      expect(entries).toHaveLength(votes.length);
      expect(records.length).toBeLessThan(votes.length / 5);
      expect(new Set(entries.map((entry) => entry.delivery_id))).toEqual(new Set(votes.map((vote) => deliveryIdFor(vote.id, 'w1'))));
      const sent = receiver.received.find((request) => request.headers['x-webhook-delivery'] === entries[0].delivery_id)!;
      const t = Number(/t=(\d+)/.exec(sent.headers['x-webhook-signature'] as string)?.[1]);
      expect(entries[0]).toMatchObject({ attempt: 1, outcome: 'succeeded', status_code: 204, webhook_id: 'w1', signature: { t, secret_id: expect.stringMatching(/^[0-9a-f]{16}$/) } });
      expect(entries[0].opened).toMatchObject({ webhook_id: 'w1', event_type: 'vote.created' });
      expect(entries[0].duration_ms).toBeGreaterThanOrEqual(0);
      expect(await eventStore.existingStreams(votes.map((vote) => `webhookdelivery-${deliveryIdFor(vote.id, 'w1')}`))).toEqual(new Set());
      // A success after no failures writes nothing to the endpoint's stream.
      expect((await eventStore.readStream('webhook-w1')).map((recorded) => recorded.type)).toEqual(['WebhookEndpointRegistered']);

      // The delivery log shows each delivery with its attempt (projected from the records).
      const docs = await succeededInLog(readStore, votes);
      const doc = docs.get(entries[0].delivery_id)!;
      expect(doc.attempts).toEqual([{ attempt: 1, started_at: entries[0].started_at, duration_ms: entries[0].duration_ms, status_code: 204, error: null, outcome: 'succeeded', signature: entries[0].signature }]);

      // The same events handed over again (a crash before the bus offsets were committed): the
      // store already holds their deliveries, so none is sent again.
      await bus.handOver(votes.slice(0, 100).map(toBusMessage));
      await sleep(1500);
      expect(receiver.received).toHaveLength(votes.length);
      expect(entriesOf(await attemptRecords(eventStore))).toHaveLength(votes.length);
    } finally {
      await dispatcher.stop();
      await projections.stop();
      await receiver.close();
      await bus.close();
      await eventStore.close();
      await readStore.close();
    }
  }, 60_000);

  it('a crash in the middle of a batch: attempts recorded before it are not sent again, the rest are (repeats bounded by what was not recorded)', async () => {
    const eventStore = sqliteEventStore(':memory:');
    const readStore = embeddedReadStore();
    const secrets = aesGcmSecretBox(randomBytes(32));
    const receiver = await startReceiver(() => 204);
    await registerEndpoint(eventStore, readStore, receiver.url, secrets.encrypt(`whsec_${randomBytes(32).toString('hex')}`, 'w1'));
    const projections = await startProjections(eventStore, readStore, [webhookDeliveriesProjection], pino({ level: 'silent' }));
    const votes = Array.from({ length: 300 }, (_, i) => voteCast(randomUUID(), i + 1, BigInt(i + 2)));
    const options = { allowPrivateTargets: true, attemptRecordMaxEntries: 50, attemptRecordLingerMs: 1_000, handoffMs: 300 };

    // The first process writes two attempt records, then dies: nothing it appends after that lands
    // (its other attempts were sent, and their outcomes are lost with it).
    let recordsWritten = 0;
    const dying: EventStore = {
      ...eventStore,
      append: async (stream, events, appendOptions) => {
        if (recordsWritten >= 2) throw new Error('the process died');
        const result = await eventStore.append(stream, events, appendOptions);
        if (stream.startsWith('webhookattempts-')) recordsWritten += 1;
        return result;
      },
      subscribe: (subscribeOptions) => eventStore.subscribe(subscribeOptions),
    };
    const firstBus = handOverBus();
    const first = await startDispatcher({
      bus: firstBus, eventStore: dying, readStore, secrets, mailer: { send: async () => undefined }, logger: pino({ level: 'silent' }), options,
    });
    // Its batch fails (its deliveries are not all stored): the bus offsets are not committed.
    await expect(firstBus.handOver(votes.map(toBusMessage))).rejects.toThrow();
    await first.stop();
    const sentBefore = receiver.received.length;
    const recordedBefore = entriesOf(await attemptRecords(eventStore));
    // (Two records: up to 50 attempts each, fewer when one is written at a pause in the requests.)
    expect(recordedBefore.length).toBeGreaterThan(0);
    expect(recordedBefore.length).toBeLessThanOrEqual(100);
    expect(sentBefore).toBeGreaterThan(recordedBefore.length);

    // The next process is handed the same batch: what was recorded is not sent again, the rest is.
    const bus = handOverBus();
    const second = await startDispatcher({
      bus, eventStore, readStore, secrets, mailer: { send: async () => undefined }, logger: pino({ level: 'silent' }), options: { ...options, attemptRecordLingerMs: 20 },
    });
    try {
      await bus.handOver(votes.map(toBusMessage));
      const recordedIds = new Set(recordedBefore.map((entry) => entry.delivery_id));
      const resent = receiver.received.slice(sentBefore).map((request) => request.headers['x-webhook-delivery'] as string);
      expect(resent).toHaveLength(votes.length - recordedIds.size);
      expect(resent.filter((id) => recordedIds.has(id))).toEqual([]);
      // Every delivery reached the receiver at least once, and the log has each with one attempt.
      expect(new Set(receiver.received.map((request) => JSON.parse(request.body)._metadata.event_id))).toEqual(new Set(votes.map((vote) => vote.id)));
      const docs = await succeededInLog(readStore, votes);
      expect([...docs.values()].every((doc) => doc.attempts.length === 1 && doc.attempts[0].attempt === 1)).toBe(true);
    } finally {
      await second.stop();
      await projections.stop();
      await receiver.close();
      await bus.close();
      await eventStore.close();
      await readStore.close();
    }
  }, 60_000);
});

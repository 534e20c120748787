import type { Logger } from 'pino';
import type { Bus, Consumer } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { Mailer } from '../infrastructure/mail/port.ts';
import type { SecretBox } from '../infrastructure/secrets/secret-box.ts';
import type { Resolve } from '../infrastructure/webhooks/target-policy.ts';
import { fromBusMessage, topicFor } from '../infrastructure/bus/envelope.ts';
import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import { DELIVERY_TIMEOUT_MS } from '../domain/webhooks/policy.ts';
import type { WebhookDisabled } from '../domain/webhooks/endpoint.ts';
import type { WebhookRedeliveryRequested } from '../domain/webhooks/delivery.ts';
import { createHttpDelivery } from './http-delivery.ts';
import { createScheduler } from './scheduler.ts';
import { runAttempt } from './attempt.ts';
import { EndpointsBehindError, scheduleDeliveries } from './schedule-deliveries.ts';
import { sendDisabledNotice } from './disabled-notice.ts';
import { mappedTopics } from './event-mapping.ts';
import { cachedDecryption } from './secret-cache.ts';

export type DispatcherOptions = {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback and private receivers allowed (development, tests). */
  allowPrivateTargets: boolean;
  /** The receiver's time to answer. */
  timeoutMs: number;
  /** How often pending deliveries are re-read from the read model (a safety net; the bus is the fast path). */
  sweepIntervalMs: number;
  maxConcurrent: number;
  /** Name resolution for receivers (tests inject one; the SSRF guard applies to what it returns). */
  resolve?: Resolve;
};

export type DispatcherDeps = {
  bus: Bus;
  eventStore: EventStore;
  readStore: ReadStore;
  mailer: Mailer;
  secrets: SecretBox;
  logger: Logger;
  options?: Partial<DispatcherOptions>;
};

export const DISPATCHER_GROUP = 'webhook-dispatcher';
export const DISPATCHER_CONTROL_GROUP = 'webhook-dispatcher.control';

/**
 * The webhook dispatcher. Two consumer groups of its own on the bus:
 * - domain events (events.vote, events.favourite, … from the mapping table), a batch at a time →
 *   a delivery stream per subscribed endpoint, then onto the timetable; never waits for HTTP;
 * - its own events (events.webhook, events.webhookdelivery) → e-mail the owner of a disabled
 *   endpoint; put redelivery requests on the timetable.
 * Attempts run from the timetable, concurrently. At start (and every sweep) the pending deliveries
 * in the read model go back on the timetable, so a restart loses no delivery, not even mid-retry.
 */
export const startDispatcher = async (deps: DispatcherDeps): Promise<{ stop: () => Promise<void> }> => {
  const options: DispatcherOptions = {
    allowPrivateTargets: false,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    sweepIntervalMs: 10_000,
    maxConcurrent: 64,
    ...deps.options,
  };
  const logger = deps.logger.child({ component: 'webhook-dispatcher' });
  const http = createHttpDelivery(options);
  const secrets = cachedDecryption(deps.secrets);
  const scheduler = createScheduler(
    (deliveryId) => runAttempt(deliveryId, { eventStore: deps.eventStore, secrets, http, logger, enqueue: (id, at) => scheduler.enqueue(id, at) }),
    { maxConcurrent: options.maxConcurrent, onError: (error, id) => logger.error({ err: error, delivery_id: id }, 'webhook attempt failed to run; the sweep retries it') },
  );

  const sweep = async () => {
    const pending = await deps.readStore
      .collection<WebhookDeliveryDoc>(Collections.webhookDeliveries)
      .find({ status: 'pending' }, { sort: { next_attempt_at: 1 }, limit: 5000 });
    for (const doc of pending) scheduler.enqueue(doc.id, Date.parse(doc.next_attempt_at ?? doc.created_at));
    return pending.length;
  };
  let stopped = false;
  const recovery = (async () => {
    // Let the deliveries read model reach the log's head first (bounded; checked in short waits so stop is prompt).
    const head = await deps.eventStore.headPosition();
    for (let waited = 0; waited < 30_000 && !stopped; waited += 500) {
      if (await deps.readStore.waitForCheckpoints(['webhook_deliveries'], head, 500)) break;
    }
    if (stopped) return;
    const count = await sweep();
    if (count > 0) logger.info({ pending: count }, 'pending webhook deliveries resumed');
  })().catch((error) => logger.error({ err: error }, 'could not resume pending webhook deliveries'));
  const sweeper = setInterval(() => {
    sweep().catch((error) => logger.error({ err: error }, 'webhook sweep failed'));
  }, options.sweepIntervalMs);
  sweeper.unref();

  const consumers: Consumer[] = [];
  consumers.push(
    await deps.bus.consume({
      group: DISPATCHER_GROUP,
      topics: mappedTopics(),
      // A batch at a time: its deliveries are scheduled together (one endpoint lookup per account,
      // one commit for all their streams); attempts are the timetable's business.
      handleBatch: async (messages) => {
        const ids = await scheduleDeliveries(messages.map(fromBusMessage), deps);
        for (const id of ids) scheduler.enqueue(id);
      },
      onError: (error, message) =>
        error instanceof EndpointsBehindError
          ? logger.warn({ offset: message.offset, position: error.position.toString() }, 'webhook endpoints not projected up to this batch yet; will retry')
          : logger.error({ err: error, offset: message.offset }, 'could not schedule webhook deliveries; will retry'),
    }),
  );
  consumers.push(
    await deps.bus.consume({
      group: DISPATCHER_CONTROL_GROUP,
      topics: [topicFor('webhook'), topicFor('webhookdelivery')],
      handle: async (message) => {
        const event = fromBusMessage(message);
        if (event.type === 'WebhookDisabled') {
          const data = event.data as unknown as WebhookDisabled['data'];
          const notice = await sendDisabledNotice(data, deps);
          logger.warn({ webhook_id: data.webhook_id, account_id: data.account_id, mailed: notice.sent, reason: notice.reason }, 'webhook endpoint disabled');
        } else if (event.type === 'WebhookRedeliveryRequested') {
          scheduler.enqueue((event.data as unknown as WebhookRedeliveryRequested['data']).delivery_id);
        }
      },
      onError: (error, message) => logger.error({ err: error, offset: message.offset }, 'webhook control message failed; will retry'),
    }),
  );
  logger.info({ topics: mappedTopics(), allow_private_targets: options.allowPrivateTargets }, 'webhook dispatcher started');

  return {
    stop: async () => {
      stopped = true;
      clearInterval(sweeper);
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      await recovery;
      await scheduler.stop();
      await http.close();
    },
  };
};

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
import { webhookDeliveryEvents } from '../domain/webhooks/delivery.ts';
import { webhookEndpointEvents } from '../domain/webhooks/endpoint.ts';
import { isFromAny } from '../infrastructure/event-store/recorded.ts';
import { createHttpDelivery } from './http-delivery.ts';
import { createScheduler, type Scheduler } from './scheduler.ts';
import { runAttempt, type AttemptDeps } from './attempt.ts';
import { EndpointsBehindError, planDeliveries } from './schedule-deliveries.ts';
import { deliveryStateOfDoc, newDelivery, parkDelivery, type Delivery } from './delivery-record.ts';
import { createAttemptLog } from './attempt-log.ts';
import { startEndpointTable } from './endpoints.ts';
import { createEndpointHealth } from './endpoint-health.ts';
import { sendDisabledNotice } from './disabled-notice.ts';
import { mappedTopics } from './event-mapping.ts';
import { cachedDecryption } from './secret-cache.ts';

export type DispatcherOptions = {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: loopback and private receivers allowed (development, tests). */
  allowPrivateTargets: boolean;
  /** The receiver's time to answer. */
  timeoutMs: number;
  /** How often pending deliveries are looked for in the store (deliveries left there, and a safety net). */
  sweepIntervalMs: number;
  /** A pending delivery in the store is taken by a sweep once it is this overdue (the start-up sweep takes all). */
  sweepGraceMs: number;
  /** Attempts running at once, in all and per endpoint. */
  maxConcurrent: number;
  maxConcurrentPerEndpoint: number;
  /** Deliveries held in memory, in all and per endpoint; the rest wait in the store. */
  maxHeld: number;
  maxHeldPerEndpoint: number;
  /**
   * How long a bus batch waits for its deliveries' first outcomes before parking the rest
   * (WebhookDeliveryScheduled) so the batch can be committed; an endpoint with requests out and
   * no answer for this long gets its deliveries parked at once.
   */
  handoffMs: number;
  /** Attempt records: at most this many attempts to one endpoint in one record, gathered for at most `attemptRecordLingerMs`. */
  attemptRecordMaxEntries: number;
  attemptRecordLingerMs: number;
  /** How long a bus batch handed over again waits for the delivery log to show what this process recorded. */
  deliveryLogCatchUpMs: number;
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
  /** PUBLIC_BASE_URL: image urls in webhook bodies are absolute under it (else paths under the API's origin). */
  publicBaseUrl?: string;
};

export const DISPATCHER_GROUP = 'webhook-dispatcher';
export const DISPATCHER_CONTROL_GROUP = 'webhook-dispatcher.control';
/**
 * Bus batches of domain events taken at once (of different partitions, on a broker): while one
 * batch waits for its slowest POST and its records, the next is planned and sent, instead of the
 * process idling between batches.
 */
const BATCHES_AT_ONCE = 3;

/**
 * The webhook dispatcher. Two consumer groups of its own on the bus:
 * - domain events (events.vote, events.favourite, … from the mapping table), BATCHES_AT_ONCE batches at a time →
 *   one delivery per subscribed endpoint, attempted at once; the batch is done (its offsets
 *   committed) when the store holds every one of its deliveries: its first outcome, or — for one
 *   that has not got one within `handoffMs`, or whose endpoint is slow or whose share of the
 *   timetable is full — a WebhookDeliveryScheduled that parks it;
 * - the events people act on (events.webhook, events.webhookdelivery) → e-mail the owner of a
 *   disabled endpoint; put redelivery requests on the timetable.
 * Attempts run from a bounded, fair timetable (scheduler.ts). Deliveries left in the store (parked
 * beyond the timetable's bounds, or pending when the process stopped) are found by the sweep: all
 * of them at start, then every `sweepIntervalMs` those overdue by `sweepGraceMs`, as room allows.
 */
export const startDispatcher = async (deps: DispatcherDeps): Promise<{ stop: () => Promise<void> }> => {
  const options: DispatcherOptions = {
    allowPrivateTargets: false,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    sweepIntervalMs: 10_000,
    sweepGraceMs: 30_000,
    maxConcurrent: 256,
    maxConcurrentPerEndpoint: 64,
    maxHeld: 10_000,
    maxHeldPerEndpoint: 2_000,
    handoffMs: 500,
    attemptRecordMaxEntries: 500,
    attemptRecordLingerMs: 20,
    deliveryLogCatchUpMs: 5_000,
    ...deps.options,
  };
  const logger = deps.logger.child({ component: 'webhook-dispatcher' });
  const http = createHttpDelivery({ ...options, connectionsPerOrigin: options.maxConcurrentPerEndpoint });
  const secrets = cachedDecryption(deps.secrets);
  const endpoints = await startEndpointTable(deps.eventStore, logger);
  const endpointWrites = new Map<string, Promise<unknown>>();
  const health = createEndpointHealth();
  const attemptLog = createAttemptLog(deps.eventStore, {
    maxEntries: options.attemptRecordMaxEntries,
    lingerMs: options.attemptRecordLingerMs,
    moreComing: (webhookId) => health.outstanding(webhookId) > 0,
  });
  const stores = { eventStore: deps.eventStore, readStore: deps.readStore };
  let scheduler: Scheduler<Delivery>;
  const attemptDeps: AttemptDeps = {
    ...stores,
    attemptLog,
    endpoints,
    secrets,
    http,
    logger,
    endpointWrites,
    health,
    recordings: new Set(),
    enqueue: (again, at) => scheduler.enqueue(again, at),
  };
  scheduler = createScheduler<Delivery>(
    (delivery) => runAttempt(delivery, attemptDeps),
    {
      total: options.maxConcurrent,
      perEndpoint: options.maxConcurrentPerEndpoint,
      maxJobs: options.maxHeld,
      maxJobsPerEndpoint: options.maxHeldPerEndpoint,
      onError: (error, job) => logger.error({ err: error, delivery_id: job.id }, 'webhook attempt failed to run; the sweep retries it'),
    },
  );

  const sweep = async (graceMs: number) => {
    const room = options.maxHeld - scheduler.size();
    if (room <= 0) return 0;
    const pending = await deps.readStore
      .collection<WebhookDeliveryDoc>(Collections.webhookDeliveries)
      .find({ status: 'pending' }, { sort: { next_attempt_at: 1 }, limit: Math.min(room, 5000) });
    const overdue = Date.now() - graceMs;
    let taken = 0;
    for (const doc of pending) {
      const dueAt = Date.parse(doc.next_attempt_at ?? doc.created_at);
      if (scheduler.has(doc.id) || dueAt > overdue) continue;
      const found = newDelivery({ id: doc.id, webhookId: doc.webhook_id, accountId: doc.account_id, known: { state: deliveryStateOfDoc(doc), revision: undefined } });
      if (scheduler.enqueue(found, dueAt)) taken += 1;
    }
    return taken;
  };
  let stopped = false;
  // The delivery log at the log's head as it was at start (bounded; checked in short waits so stop
  // is prompt): it then shows every attempt recorded before, which the first batches are checked against.
  const caughtUp = (async () => {
    const head = await deps.eventStore.headPosition();
    for (let waited = 0; waited < 30_000 && !stopped; waited += 500) {
      if (await deps.readStore.waitForCheckpoints(['webhook_deliveries'], head, 500)) return;
    }
  })();
  const recovery = (async () => {
    await caughtUp;
    if (stopped) return;
    const count = await sweep(-Infinity);
    if (count > 0) logger.info({ pending: count }, 'pending webhook deliveries resumed');
  })().catch((error) => logger.error({ err: error }, 'could not resume pending webhook deliveries'));
  const sweeper = setInterval(() => {
    void recovery.then(() => sweep(options.sweepGraceMs)).catch((error) => logger.error({ err: error }, 'webhook sweep failed'));
  }, options.sweepIntervalMs);
  sweeper.unref();

  /**
   * The domain events taken lately (their ids, the last 20,000): a batch holding one of them is
   * handed over again (it failed, or a bus rebalance brought it back), and what this process
   * recorded for it may not be in the delivery log yet.
   */
  const takenLately = new Set<string>();
  const TAKEN_REMEMBERED = 20_000;
  const deliveryLog = deps.readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries);

  /**
   * A batch of domain events: plan its deliveries, leave out those the store already has (a batch
   * handed over again after a crash: finished ones are not sent again, pending ones resume), attempt
   * the rest at once, and resolve once the store holds every one of them.
   */
  const take = async (events: ReturnType<typeof fromBusMessage>[]) => {
    await caughtUp;
    // Held already (an earlier hand-over of these events) or not: those not held are looked for in
    // the delivery log with one read for the batch. A batch this process took before (a failed
    // batch handed over again) first waits for the log to show what this process recorded since.
    const planned = (await planDeliveries(events, deps)).filter(({ opening }) => !scheduler.has(opening.delivery_id));
    if (planned.length === 0) return;
    if (events.some((event) => takenLately.has(event.id))) {
      const head = await deps.eventStore.headPosition();
      if (!(await deps.readStore.waitForCheckpoints(['webhook_deliveries'], head, options.deliveryLogCatchUpMs))) {
        throw new Error('the delivery log has not caught up with this process\'s records; the batch is retried');
      }
    }
    for (const event of events) takenLately.add(event.id);
    for (const id of takenLately) {
      if (takenLately.size <= TAKEN_REMEMBERED) break;
      takenLately.delete(id);
    }
    const stored = await deliveryLog.getMany(planned.map(({ opening }) => opening.delivery_id));
    const waiting: Delivery[] = [];
    for (const { opening, correlationId } of planned) {
      const doc = stored.get(opening.delivery_id);
      if (doc) {
        if (doc.status === 'pending') {
          const state = deliveryStateOfDoc(doc);
          const found = newDelivery({ id: opening.delivery_id, webhookId: opening.webhook_id, accountId: opening.account_id, known: { state, revision: undefined } });
          scheduler.enqueue(found, doc.next_attempt_at ? Date.parse(doc.next_attempt_at) : 0);
        }
        continue;
      }
      const delivery = newDelivery({ id: opening.delivery_id, webhookId: opening.webhook_id, accountId: opening.account_id, opening, correlationId });
      const slow = health.stuckForMs(opening.webhook_id) > options.handoffMs;
      // (A failed parking shows below: the delivery is not stored and the batch fails.)
      if (slow) parkDelivery(stores, delivery).catch(() => undefined);
      if (!scheduler.enqueue(delivery)) parkDelivery(stores, delivery).catch(() => undefined); // left in the store for the sweep
      waiting.push(delivery);
    }
    if (waiting.length === 0) return;
    // Wait while the batch's deliveries make progress. Those of an endpoint that is stuck (requests
    // out, no answer for handoffMs) are parked as soon as that shows, and all
    // that remain once none has been stored for handoffMs; then the batch can be committed.
    const parking: Promise<unknown>[] = [];
    const parked = new Set<Delivery>();
    const park = (delivery: Delivery) => {
      if (parked.has(delivery) || delivery.isStored) return;
      parked.add(delivery);
      parking.push(parkDelivery(stores, delivery).catch(() => undefined));
    };
    let storedCount = 0;
    let progressAt = Date.now();
    for (;;) {
      const unstored = waiting.filter((delivery) => !delivery.isStored);
      if (unstored.length === 0) break;
      if (waiting.length - unstored.length > storedCount) {
        storedCount = waiting.length - unstored.length;
        progressAt = Date.now();
      }
      const stalled = Date.now() - progressAt >= options.handoffMs;
      for (const delivery of unstored) if (stalled || health.stuckForMs(delivery.webhookId) > options.handoffMs) park(delivery);
      if (stalled) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(unstored.map((delivery) => delivery.stored)),
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.min(100, options.handoffMs));
        }),
      ]);
      clearTimeout(timer);
    }
    await Promise.all(parking);
    const unstored = waiting.filter((delivery) => !delivery.isStored);
    if (unstored.length > 0) throw new Error(`${unstored.length} webhook deliveries could not be stored; the batch is retried`);
  };

  const consumers: Consumer[] = [];
  consumers.push(
    await deps.bus.consume({
      group: DISPATCHER_GROUP,
      topics: mappedTopics(),
      handleBatch: async (messages) => take(messages.map(fromBusMessage)),
      concurrentBatches: BATCHES_AT_ONCE,
      onError: (error, message) =>
        error instanceof EndpointsBehindError
          ? logger.warn({ offset: message.offset, position: error.position.toString() }, 'webhook endpoints not projected up to this batch yet; will retry')
          : logger.error({ err: error, offset: message.offset }, 'could not take webhook deliveries; will retry'),
      onCrash: (error) => logger.error({ err: error, group: DISPATCHER_GROUP }, 'bus consumer crashed; replacing it'),
    }),
  );
  consumers.push(
    await deps.bus.consume({
      group: DISPATCHER_CONTROL_GROUP,
      topics: [topicFor('webhook'), topicFor('webhookdelivery')],
      handle: async (message) => {
        const event = fromBusMessage(message);
        if (!isFromAny([webhookEndpointEvents, webhookDeliveryEvents], event)) return;
        if (event.type === 'WebhookDisabled') {
          const data = event.data;
          const notice = await sendDisabledNotice(data, deps);
          logger.warn({ webhook_id: data.webhook_id, account_id: data.account_id, mailed: notice.sent, reason: notice.reason }, 'webhook endpoint disabled');
        } else if (event.type === 'WebhookRedeliveryRequested') {
          const data = event.data;
          // Read from the delivery log when it comes up: once the log shows the request (bounded; the sweep is the safety net).
          await deps.readStore.waitForCheckpoints(['webhook_deliveries'], event.position, options.deliveryLogCatchUpMs);
          scheduler.enqueue(newDelivery({ id: data.delivery_id, webhookId: data.webhook_id, accountId: data.account_id }));
        }
      },
      onError: (error, message) => logger.error({ err: error, offset: message.offset }, 'webhook control message failed; will retry'),
      onCrash: (error) => logger.error({ err: error, group: DISPATCHER_CONTROL_GROUP }, 'bus consumer crashed; replacing it'),
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
      await attemptLog.flush();
      await Promise.all([...attemptDeps.recordings]);
      await endpoints.stop();
      await http.close();
    },
  };
};

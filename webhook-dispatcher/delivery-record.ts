import { Collections, type WebhookDeliveryDoc } from '../contracts/read-models.ts';
import { isDomainError } from '../domain/errors.ts';
import { webhookDeliveryDecider, type WebhookDeliveryCommand } from '../domain/webhooks/decide.ts';
import {
  evolveWithAttempt,
  webhookDeliveryStream,
  type AttemptEntry,
  type AttemptSignature,
  type DeliveryOpening,
  type WebhookDeliveryAttempted,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from '../domain/webhooks/delivery.ts';
import { metadataFor } from '../infrastructure/event-store/command-handler.ts';
import { dispatcherContext } from './dispatcher-context.ts';
import { isWrongExpectedRevision, type EventStore, type ExpectedRevision } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { AttemptLog } from './attempt-log.ts';
import { newEventId } from '../infrastructure/ids.ts';
import type { Job } from './scheduler.ts';

export { dispatcherContext };

/**
 * A delivery as this process holds it. `known` is its state as this process last recorded or read
 * it (null: not read yet — a delivery found in the store, read from the delivery log when its
 * attempt comes up), with the revision of the delivery's own stream (null: no stream; undefined:
 * not known — read from the log). A delivery taken from the bus starts with nothing in the store
 * and its `opening`: its first record (the first attempt's entry in an attempt record, or
 * WebhookDeliveryScheduled when it is parked) carries what it is. Writes to one delivery are
 * chained, so an outcome and a parking never race each other.
 */
export type Delivery = Job & {
  accountId: string;
  opening: DeliveryOpening | null;
  causationId: string | null;
  correlationId: string | null;
  known: { state: WebhookDeliveryState; revision: bigint | null | undefined } | null;
  /** The body as first serialised: every attempt sends (and signs) the same bytes. */
  body: string | null;
  writes: Promise<unknown>;
  /** Resolved once the store holds this delivery (recorded by this process or found there). */
  stored: Promise<void>;
  markStored: () => void;
  isStored: boolean;
};

export const newDelivery = (fields: {
  id: string;
  webhookId: string;
  accountId: string;
  opening?: DeliveryOpening | null;
  causationId?: string | null;
  correlationId?: string | null;
  known?: Delivery['known'];
}): Delivery => {
  let markStored = () => undefined as void;
  const stored = new Promise<void>((resolve) => {
    markStored = resolve;
  });
  const delivery: Delivery = {
    id: fields.id,
    webhookId: fields.webhookId,
    accountId: fields.accountId,
    opening: fields.opening ?? null,
    causationId: fields.causationId ?? fields.opening?.event_id ?? null,
    correlationId: fields.correlationId ?? null,
    // A delivery taken from the bus has nothing in the store yet (checked when it was taken).
    known: fields.known ?? (fields.opening ? { state: webhookDeliveryDecider.initialState(), revision: null } : null),
    body: null,
    writes: Promise.resolve(),
    stored,
    isStored: false,
    markStored: () => {
      delivery.isStored = true;
      markStored();
    },
  };
  if (!fields.opening) delivery.markStored();
  return delivery;
};

/** A delivery's state as the delivery log shows it (its stream and its attempt records, projected). */
export const deliveryStateOfDoc = (doc: WebhookDeliveryDoc): WebhookDeliveryState => ({
  status: doc.status,
  deliveryId: doc.id,
  webhookId: doc.webhook_id,
  accountId: doc.account_id,
  eventType: doc.event_type,
  payload: doc.payload,
  attempts: doc.attempts.reduce((highest, attempt) => Math.max(highest, attempt.attempt), 0),
  roundAttempts: doc.round_attempts ?? doc.attempts.length,
  nextAttemptAt: doc.next_attempt_at,
});

/** Reads the delivery from the delivery log into `known` (a delivery found in the store). */
export const readDelivery = async (readStore: ReadStore, delivery: Delivery): Promise<WebhookDeliveryState> => {
  const doc = await readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries).get(delivery.id);
  const state = doc ? deliveryStateOfDoc(doc) : webhookDeliveryDecider.initialState();
  delivery.known = { state, revision: undefined };
  if (doc) delivery.markStored();
  return state;
};

/** The delivery as it stands, counting its opening when nothing is recorded yet. */
export const deliveryView = (delivery: Delivery): WebhookDeliveryState => {
  const state = delivery.known?.state ?? webhookDeliveryDecider.initialState();
  if (state.status !== 'none' || !delivery.opening) return state;
  return webhookDeliveryDecider.evolve(state, { type: 'WebhookDeliveryScheduled', data: delivery.opening });
};

const expectedOf = (revision: bigint | null | undefined): ExpectedRevision => (revision === undefined ? 'any' : (revision ?? 'no_stream'));

/**
 * Decides `command` on the delivery as this process knows it and appends the result to the
 * delivery's stream (after any write already on its way), at the revision this process knows.
 * Answers the events, or null when another writer got there first (a wrong revision, or the
 * command no longer applies): this process then lets the delivery go.
 */
export const recordOnDelivery = (
  deps: { eventStore: EventStore; readStore: ReadStore },
  delivery: Delivery,
  command: (state: WebhookDeliveryState) => WebhookDeliveryCommand | null,
): Promise<WebhookDeliveryEvent[] | null> => {
  const step = delivery.writes.then(async () => {
    if (!delivery.known) await readDelivery(deps.readStore, delivery);
    const known = delivery.known as NonNullable<Delivery['known']>;
    const decided = command(known.state);
    if (!decided) return [];
    let events: WebhookDeliveryEvent[];
    try {
      events = webhookDeliveryDecider.decide(decided, known.state);
    } catch (error) {
      if (isDomainError(error) && error.code === 'conflict') return null;
      throw error;
    }
    if (events.length === 0) return events;
    const now = new Date().toISOString();
    const metadata = metadataFor({ ...dispatcherContext(delivery.accountId, delivery.causationId), correlationId: delivery.correlationId }, now);
    try {
      const result = await deps.eventStore.append(
        webhookDeliveryStream(delivery.id),
        events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
        { expectedRevision: expectedOf(known.revision) },
      );
      known.revision = result.nextRevision;
      known.state = events.reduce(webhookDeliveryDecider.evolve, known.state);
      delivery.markStored();
      return events;
    } catch (error) {
      if (!isWrongExpectedRevision(error)) throw error;
      delivery.known = null;
      delivery.markStored();
      return null;
    }
  });
  delivery.writes = step.catch(() => undefined);
  return step;
};

/**
 * Records one attempt (decided by RecordAttempt on the delivery as this process knows it) as an
 * entry of the endpoint's next attempt record; the first attempt of a delivery with nothing in the
 * store carries its opening. Answers the entry once its record is in the store, or null when the
 * attempt no longer applies (recorded already, or the delivery is no longer pending).
 */
export const recordAttempt = (
  deps: { readStore: ReadStore; attemptLog: AttemptLog },
  delivery: Delivery,
  command: Omit<Extract<WebhookDeliveryCommand, { type: 'RecordAttempt' }>, 'type' | 'opening'>,
  signature: AttemptSignature | null,
): Promise<AttemptEntry | null> => {
  const step = delivery.writes.then(async () => {
    if (!delivery.known) await readDelivery(deps.readStore, delivery);
    const known = delivery.known as NonNullable<Delivery['known']>;
    const opening = known.state.status === 'none' && delivery.opening ? delivery.opening : undefined;
    let events: WebhookDeliveryEvent[];
    try {
      events = webhookDeliveryDecider.decide({ type: 'RecordAttempt', ...command, ...(opening ? { opening } : {}) }, known.state);
    } catch (error) {
      if (isDomainError(error) && error.code === 'conflict') return null;
      throw error;
    }
    const attempted = events.find((event): event is WebhookDeliveryAttempted => event.type === 'WebhookDeliveryAttempted');
    if (!attempted) return null;
    const entry: AttemptEntry = { ...attempted.data, signature };
    await deps.attemptLog.record(delivery.accountId, entry);
    known.state = evolveWithAttempt(known.state, entry);
    delivery.markStored();
    return entry;
  });
  delivery.writes = step.catch(() => undefined);
  return step;
};

/** Parks a delivery that has nothing in the store yet: WebhookDeliveryScheduled (a no-op once anything is recorded). */
export const parkDelivery = (deps: { eventStore: EventStore; readStore: ReadStore }, delivery: Delivery): Promise<unknown> =>
  recordOnDelivery(deps, delivery, (state) =>
    state.status === 'none' && delivery.opening ? { type: 'ScheduleDelivery', ...delivery.opening, now: delivery.opening.scheduled_at } : null,
  );

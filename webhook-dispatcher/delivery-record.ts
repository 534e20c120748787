import { isDomainError } from '../domain/errors.ts';
import { webhookDeliveryDecider, type WebhookDeliveryCommand } from '../domain/webhooks/decide.ts';
import { webhookDeliveryStream, type DeliveryOpening, type WebhookDeliveryEvent, type WebhookDeliveryState } from '../domain/webhooks/delivery.ts';
import { metadataFor, stateOf, type CommandContext } from '../infrastructure/event-store/command-handler.ts';
import { isWrongExpectedRevision, type EventStore } from '../infrastructure/event-store/port.ts';
import { newEventId } from '../infrastructure/ids.ts';
import type { Job } from './scheduler.ts';

export const dispatcherContext = (accountId: string, causationId: string | null = null): CommandContext => ({
  accountId,
  requestId: null,
  causationId,
  actor: 'system:webhook-dispatcher',
});

/**
 * A delivery as this process holds it. `known` is its stream as this process last wrote or read
 * it (null: not read yet — a delivery found in the store, read when its attempt comes up). A
 * delivery taken from the bus starts with nothing in the store and its `opening`: its first
 * recorded event (the first attempt's outcome, or WebhookDeliveryScheduled when it is parked)
 * carries what it is. Writes to one delivery are chained, each at the revision the one before
 * left, so an outcome and a parking never race each other.
 */
export type Delivery = Job & {
  accountId: string;
  opening: DeliveryOpening | null;
  causationId: string | null;
  correlationId: string | null;
  known: { state: WebhookDeliveryState; revision: bigint | null } | null;
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

/** Reads the delivery's stream into `known` (a delivery found in the store). */
export const readDelivery = async (eventStore: EventStore, delivery: Delivery): Promise<WebhookDeliveryState> => {
  const folded = await stateOf(eventStore, webhookDeliveryStream(delivery.id), webhookDeliveryDecider);
  delivery.known = { state: folded.state, revision: folded.revision };
  if (folded.revision !== null) delivery.markStored();
  return folded.state;
};

/** The delivery as it stands, counting its opening when nothing is recorded yet. */
export const deliveryView = (delivery: Delivery): WebhookDeliveryState => {
  const state = delivery.known?.state ?? webhookDeliveryDecider.initialState();
  if (state.status !== 'none' || !delivery.opening) return state;
  return webhookDeliveryDecider.evolve(state, { type: 'WebhookDeliveryScheduled', data: delivery.opening });
};

/**
 * Decides `command` on the delivery as this process knows it and appends the result at that
 * revision (after any write already on its way). Answers the events, or null when another writer
 * got there first (a wrong revision, or the attempt already recorded): this process then lets the
 * delivery go — the store holds it and whoever wrote it carries on.
 */
export const recordOnDelivery = (
  eventStore: EventStore,
  delivery: Delivery,
  command: (state: WebhookDeliveryState) => WebhookDeliveryCommand | null,
): Promise<WebhookDeliveryEvent[] | null> => {
  const step = delivery.writes.then(async () => {
    if (!delivery.known) await readDelivery(eventStore, delivery);
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
      const result = await eventStore.append(
        webhookDeliveryStream(delivery.id),
        events.map((event) => ({ id: newEventId(), type: event.type, data: event.data as Record<string, unknown>, metadata })),
        { expectedRevision: known.revision ?? 'no_stream' },
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

/** Parks a delivery that has nothing in the store yet: WebhookDeliveryScheduled (a no-op once anything is recorded). */
export const parkDelivery = (eventStore: EventStore, delivery: Delivery): Promise<unknown> =>
  recordOnDelivery(eventStore, delivery, (state) =>
    state.status === 'none' && delivery.opening ? { type: 'ScheduleDelivery', ...delivery.opening, now: delivery.opening.scheduled_at } : null,
  );

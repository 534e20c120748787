import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * One delivery = one domain event to one endpoint, with its attempts. Its id is derived from the
 * event id and the endpoint id, so an event the bus hands over twice is scheduled once.
 */
export const webhookDeliveryStream = (deliveryId: string): string => `webhookdelivery-${deliveryId}`;

export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

/** What a delivery is: the event it carries to which endpoint (recorded with its first event). */
export type DeliveryOpening = {
  delivery_id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  scheduled_at: string;
};

export type WebhookDeliveryScheduled = Event<'WebhookDeliveryScheduled', DeliveryOpening>;
export type WebhookDeliveryAttempted = Event<
  'WebhookDeliveryAttempted',
  {
    delivery_id: string;
    webhook_id: string;
    account_id: string;
    /** 1-based over the whole life of the delivery (redeliveries continue counting). */
    attempt: number;
    started_at: string;
    duration_ms: number;
    status_code: number | null;
    error: string | null;
    outcome: DeliveryOutcome;
    next_attempt_at: string | null;
    /**
     * Present when this attempt opens the delivery's stream: a delivery attempted straight from
     * the bus is recorded by one event, its first outcome, instead of WebhookDeliveryScheduled
     * followed by WebhookDeliveryAttempted. Older streams start with WebhookDeliveryScheduled.
     */
    opened?: DeliveryOpening;
  }
>;
export type WebhookDeliveryAbandoned = Event<
  'WebhookDeliveryAbandoned',
  { delivery_id: string; webhook_id: string; account_id: string; reason: string; abandoned_at: string }
>;
export type WebhookRedeliveryRequested = Event<
  'WebhookRedeliveryRequested',
  { delivery_id: string; webhook_id: string; account_id: string; requested_at: string }
>;

/**
 * How an attempt was signed, for auditors: the `t` of its `X-Webhook-Signature` and which secret
 * signed it (a fingerprint of the endpoint's stored, encrypted secret: it changes on rotation and
 * reveals nothing of the secret). null: sent unsigned (a legacy endpoint) or not sent.
 */
export type AttemptSignature = { t: number; secret_id: string };

/** One attempt of one delivery, as an attempt record carries it: what WebhookDeliveryAttempted says, and its signature. */
export type AttemptEntry = WebhookDeliveryAttempted['data'] & { signature: AttemptSignature | null };

/**
 * Attempt records: the dispatcher records the attempts it made to one endpoint in one event
 * (`webhookattempts-<id>`, a stream per record), an entry per attempt with its delivery, number,
 * outcome, timing and signature — the first attempt of a delivery also carries what the delivery
 * is (`opened`). Nothing is appended to the delivery's own stream for an attempt; that stream keeps
 * what happens to a delivery besides its attempts (parked, abandoned, redelivery asked for) and, in
 * streams written before attempt records, WebhookDeliveryAttempted events (still read the same).
 */
export const webhookAttemptsStream = (recordId: string): string => `webhookattempts-${recordId}`;

export type WebhookAttemptsRecorded = Event<'WebhookAttemptsRecorded', { webhook_id: string; account_id: string; attempts: AttemptEntry[] }>;

/** An attempt record folded (auditors): the attempts it holds. */
export type WebhookAttemptsState = { webhookId: string | null; attempts: AttemptEntry[] };

/** The events of `webhookattempts-…` streams (attempt records), told apart where they are read back. */
export const webhookAttemptsEvents = streamEvents<WebhookAttemptsRecorded>('webhookattempts', { WebhookAttemptsRecorded: true });

export const evolveWebhookAttempts = (state: WebhookAttemptsState, event: WebhookAttemptsRecorded): WebhookAttemptsState =>
  event.type === 'WebhookAttemptsRecorded' ? { webhookId: event.data.webhook_id, attempts: [...state.attempts, ...event.data.attempts] } : state;

/** A delivery's state after one of its attempts: the entry read as the WebhookDeliveryAttempted it stands for. */
export const evolveWithAttempt = (state: WebhookDeliveryState, entry: AttemptEntry): WebhookDeliveryState =>
  evolveWebhookDelivery(state, { type: 'WebhookDeliveryAttempted', data: entry });

export type WebhookDeliveryEvent =
  | WebhookDeliveryScheduled
  | WebhookDeliveryAttempted
  | WebhookDeliveryAbandoned
  | WebhookRedeliveryRequested;

/** The events of `webhookdelivery-…` streams, told apart where they are read back. */
export const webhookDeliveryEvents = streamEvents<WebhookDeliveryEvent>('webhookdelivery', { WebhookDeliveryScheduled: true, WebhookDeliveryAttempted: true, WebhookDeliveryAbandoned: true, WebhookRedeliveryRequested: true });

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'abandoned';

export type WebhookDeliveryState =
  | { status: 'none' }
  | {
      status: WebhookDeliveryStatus;
      deliveryId: string;
      webhookId: string;
      accountId: string;
      eventType: string;
      payload: Record<string, unknown>;
      /** Attempts made so far, all rounds. */
      attempts: number;
      /** Attempts made in the current round (a redelivery starts a new one). */
      roundAttempts: number;
      nextAttemptAt: string | null;
    };

export const initialWebhookDeliveryState = (): WebhookDeliveryState => ({ status: 'none' });

/**
 * The dispatcher's own bookkeeping: what it records about its attempts. Only the dispatcher and
 * the delivery log read these, from the event store; the relay keeps them off the bus (the
 * events people act on — WebhookDisabled, WebhookRedeliveryRequested — still travel).
 */
export const DISPATCHER_BOOKKEEPING_EVENTS: ReadonlySet<string> = new Set([
  'WebhookDeliveryScheduled',
  'WebhookDeliveryAttempted',
  'WebhookDeliveryAbandoned',
  'WebhookAttemptFailed',
  'WebhookFailuresReset',
  'WebhookAttemptsRecorded',
]);

const opened = (data: DeliveryOpening): WebhookDeliveryState => ({
  status: 'pending',
  deliveryId: data.delivery_id,
  webhookId: data.webhook_id,
  accountId: data.account_id,
  eventType: data.event_type,
  payload: data.payload,
  attempts: 0,
  roundAttempts: 0,
  nextAttemptAt: data.scheduled_at,
});

export const evolveWebhookDelivery = (before: WebhookDeliveryState, event: WebhookDeliveryEvent): WebhookDeliveryState => {
  if (event.type === 'WebhookDeliveryScheduled') return opened(event.data);
  const state = before.status === 'none' && event.type === 'WebhookDeliveryAttempted' && event.data.opened ? opened(event.data.opened) : before;
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'WebhookDeliveryAttempted':
      return {
        ...state,
        status: event.data.outcome === 'retrying' ? 'pending' : event.data.outcome,
        attempts: event.data.attempt,
        roundAttempts: state.roundAttempts + 1,
        nextAttemptAt: event.data.next_attempt_at,
      };
    case 'WebhookDeliveryAbandoned':
      return { ...state, status: 'abandoned', nextAttemptAt: null };
    case 'WebhookRedeliveryRequested':
      return { ...state, status: 'pending', roundAttempts: 0, nextAttemptAt: event.data.requested_at };
  }
};

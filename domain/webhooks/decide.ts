import { DomainError } from '../errors.ts';
import type { Decider } from '../decider.ts';
import {
  evolveWebhookEndpoint,
  initialWebhookEndpointState,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from './endpoint.ts';
import { evolveWebhookRegistry, initialWebhookRegistryState, type WebhookRegistryEvent, type WebhookRegistryState } from './registry.ts';
import {
  evolveWebhookAttempts,
  evolveWebhookDelivery,
  initialWebhookDeliveryState,
  type AttemptEntry,
  type WebhookAttemptsRecorded,
  type WebhookAttemptsState,
  type DeliveryOpening,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from './delivery.ts';
import { backoffMs, MAX_ATTEMPTS, MAX_CONSECUTIVE_FAILURES, MAX_ENDPOINTS_PER_ACCOUNT, STALE_SLOT_MS } from './policy.ts';

// ── endpoint ────────────────────────────────────────────────────────────────────────────────

export type WebhookEndpointCommand =
  | {
      type: 'RegisterEndpoint';
      webhook_id: string;
      account_id: string;
      url: string;
      name?: string | null;
      description: string;
      enabled_events: string[];
      signing_secret_encrypted: string | null;
      legacy_unsigned: boolean;
      now: string;
    }
  | { type: 'RotateSecret'; account_id: string; signing_secret_encrypted: string; now: string }
  | { type: 'DeleteEndpoint'; account_id: string; now: string }
  /** The dispatcher reports each attempt's outcome: ten failures in a row disable the endpoint. */
  | { type: 'RecordAttemptOutcome'; delivery_id: string; success: boolean; now: string };

const ownEndpoint = (state: WebhookEndpointState, accountId: string) => {
  if (state.status === 'none' || state.status === 'deleted') throw new DomainError('not_found', 'webhook endpoint not found');
  if (state.accountId !== accountId) throw new DomainError('forbidden', 'this webhook endpoint belongs to another account');
  return state;
};

export const decideWebhookEndpoint = (command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] => {
  switch (command.type) {
    case 'RegisterEndpoint': {
      if (state.status !== 'none') throw new DomainError('conflict', `webhook endpoint ${command.webhook_id} already exists`);
      if (command.signing_secret_encrypted === null && !command.legacy_unsigned) {
        throw new DomainError('validation_failed', 'a signed endpoint needs a signing secret');
      }
      const { type: _type, now, ...data } = command;
      return [{ type: 'WebhookEndpointRegistered', data: { ...data, enabled_events: [...new Set(data.enabled_events)], registered_at: now } }];
    }
    case 'RotateSecret': {
      const endpoint = ownEndpoint(state, command.account_id);
      return [
        {
          type: 'WebhookSecretRotated',
          data: {
            webhook_id: endpoint.webhookId,
            account_id: endpoint.accountId,
            signing_secret_encrypted: command.signing_secret_encrypted,
            rotated_at: command.now,
          },
        },
      ];
    }
    case 'DeleteEndpoint': {
      const endpoint = ownEndpoint(state, command.account_id);
      return [{ type: 'WebhookEndpointDeleted', data: { webhook_id: endpoint.webhookId, account_id: endpoint.accountId, deleted_at: command.now } }];
    }
    case 'RecordAttemptOutcome': {
      if (state.status !== 'enabled') return [];
      const ids = { webhook_id: state.webhookId, account_id: state.accountId, delivery_id: command.delivery_id };
      if (command.success) {
        return state.consecutiveFailures > 0 ? [{ type: 'WebhookFailuresReset', data: { ...ids, reset_at: command.now } }] : [];
      }
      const failures = state.consecutiveFailures + 1;
      const failed: WebhookEndpointEvent = { type: 'WebhookAttemptFailed', data: { ...ids, consecutive_failures: failures, failed_at: command.now } };
      if (failures < MAX_CONSECUTIVE_FAILURES) return [failed];
      return [
        failed,
        {
          type: 'WebhookDisabled',
          data: {
            webhook_id: state.webhookId,
            account_id: state.accountId,
            url: state.url,
            consecutive_failures: failures,
            reason: `${failures} consecutive failed delivery attempts`,
            disabled_at: command.now,
          },
        },
      ];
    }
  }
};

export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  decide: decideWebhookEndpoint,
  evolve: evolveWebhookEndpoint,
  initialState: initialWebhookEndpointState,
};

// ── registry (the limit of five per account) ──────────────────────────────────────────────

export type WebhookRegistryCommand =
  | {
      type: 'TakeSlot';
      account_id: string;
      webhook_id: string;
      /** Slots whose endpoint exists (registered and not deleted). Younger slots count anyway. */
      live_webhook_ids: readonly string[];
      now: string;
    }
  | { type: 'ReleaseSlot'; account_id: string; webhook_id: string; now: string };

export const decideWebhookRegistry = (command: WebhookRegistryCommand, state: WebhookRegistryState): WebhookRegistryEvent[] => {
  switch (command.type) {
    case 'TakeSlot': {
      const now = Date.parse(command.now);
      const orphans = [...state.slots].filter(
        ([id, takenAt]) => !command.live_webhook_ids.includes(id) && now - Date.parse(takenAt) >= STALE_SLOT_MS,
      );
      const held = state.slots.size - orphans.length;
      if (held >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw new DomainError('webhook_limit_reached', `at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints per account (disabled ones count)`, {
          extra: { limit: MAX_ENDPOINTS_PER_ACCOUNT },
        });
      }
      return [
        ...orphans.map(([id]): WebhookRegistryEvent => ({
          type: 'WebhookSlotReleased',
          data: { account_id: command.account_id, webhook_id: id, released_at: command.now },
        })),
        { type: 'WebhookSlotTaken', data: { account_id: command.account_id, webhook_id: command.webhook_id, taken_at: command.now } },
      ];
    }
    case 'ReleaseSlot':
      return state.slots.has(command.webhook_id)
        ? [{ type: 'WebhookSlotReleased', data: { account_id: command.account_id, webhook_id: command.webhook_id, released_at: command.now } }]
        : [];
  }
};

export const webhookRegistryDecider: Decider<WebhookRegistryState, WebhookRegistryCommand, WebhookRegistryEvent> = {
  decide: decideWebhookRegistry,
  evolve: evolveWebhookRegistry,
  initialState: initialWebhookRegistryState,
};

// ── delivery ────────────────────────────────────────────────────────────────────────────────

export type WebhookDeliveryCommand =
  | {
      type: 'ScheduleDelivery';
      delivery_id: string;
      webhook_id: string;
      account_id: string;
      event_id: string;
      event_type: string;
      payload: Record<string, unknown>;
      now: string;
    }
  | {
      type: 'RecordAttempt';
      /** The attempt number the caller made (state.attempts + 1 when it read the stream). */
      attempt: number;
      started_at: string;
      duration_ms: number;
      status_code: number | null;
      error: string | null;
      success: boolean;
      /** 0..250 ms added to the backoff so retries of many deliveries do not line up. */
      jitter_ms: number;
      now: string;
      /** The delivery, for a first attempt on a stream nothing has been recorded on yet. */
      opening?: DeliveryOpening;
    }
  | { type: 'AbandonDelivery'; reason: string; now: string }
  | {
      type: 'RequestRedelivery';
      delivery_id: string;
      account_id: string;
      webhook_id: string;
      now: string;
      /**
       * The delivery as its log shows it (the deliveries read model once it has reached the head of
       * the event log, read after the stream): attempts are recorded in attempt records, not on the
       * delivery's stream, so the stream alone does not know whether a delivery is finished. null:
       * the log has no such delivery. Absent: the stream alone decides.
       */
      logged?: { status: WebhookDeliveryState['status']; webhook_id: string; account_id: string } | null;
    };

export const decideWebhookDelivery = (command: WebhookDeliveryCommand, state: WebhookDeliveryState): WebhookDeliveryEvent[] => {
  switch (command.type) {
    case 'ScheduleDelivery': {
      if (state.status !== 'none') return []; // the same event seen twice: scheduled once
      const { type: _type, now, ...data } = command;
      return [{ type: 'WebhookDeliveryScheduled', data: { ...data, scheduled_at: now } }];
    }
    case 'RecordAttempt': {
      if (state.status === 'none' && command.opening) {
        const opened = evolveWebhookDelivery(state, { type: 'WebhookDeliveryScheduled', data: command.opening });
        const { opening: _opening, ...rest } = command;
        return decideWebhookDelivery(rest, opened).map((event) =>
          event.type === 'WebhookDeliveryAttempted' ? { ...event, data: { ...event.data, opened: command.opening } } : event,
        );
      }
      if (state.status !== 'pending' || state.attempts + 1 !== command.attempt) {
        throw new DomainError('conflict', 'this attempt was already recorded or the delivery is no longer pending');
      }
      const inRound = state.roundAttempts + 1;
      const outcome = command.success ? 'succeeded' : inRound >= MAX_ATTEMPTS ? 'failed' : 'retrying';
      const next = outcome === 'retrying' ? new Date(Date.parse(command.now) + backoffMs(inRound, command.jitter_ms)).toISOString() : null;
      return [
        {
          type: 'WebhookDeliveryAttempted',
          data: {
            delivery_id: state.deliveryId,
            webhook_id: state.webhookId,
            account_id: state.accountId,
            attempt: command.attempt,
            started_at: command.started_at,
            duration_ms: command.duration_ms,
            status_code: command.status_code,
            error: command.error,
            outcome,
            next_attempt_at: next,
          },
        },
      ];
    }
    case 'AbandonDelivery':
      if (state.status !== 'pending') return [];
      return [
        {
          type: 'WebhookDeliveryAbandoned',
          data: { delivery_id: state.deliveryId, webhook_id: state.webhookId, account_id: state.accountId, reason: command.reason, abandoned_at: command.now },
        },
      ];
    case 'RequestRedelivery': {
      // The log, read after the stream (so it has seen at least what the stream held), decides when given.
      const { logged } = command;
      const known =
        logged !== undefined
          ? logged && { status: logged.status, webhookId: logged.webhook_id, accountId: logged.account_id }
          : state.status === 'none'
            ? null
            : { status: state.status, webhookId: state.webhookId, accountId: state.accountId };
      if (!known || known.status === 'none' || known.webhookId !== command.webhook_id) throw new DomainError('not_found', 'delivery not found');
      if (known.accountId !== command.account_id) throw new DomainError('forbidden', 'this delivery belongs to another account');
      if (known.status === 'pending') throw new DomainError('delivery_pending', 'this delivery is still being attempted');
      const deliveryId = state.status === 'none' ? command.delivery_id : state.deliveryId;
      return [
        {
          type: 'WebhookRedeliveryRequested',
          data: { delivery_id: deliveryId, webhook_id: known.webhookId, account_id: known.accountId, requested_at: command.now },
        },
      ];
    }
  }
};

export const webhookDeliveryDecider: Decider<WebhookDeliveryState, WebhookDeliveryCommand, WebhookDeliveryEvent> = {
  decide: decideWebhookDelivery,
  evolve: evolveWebhookDelivery,
  initialState: initialWebhookDeliveryState,
};

// ── attempt records ─────────────────────────────────────────────────────────────────────────

/** The dispatcher records attempts it made to one endpoint (each decided by RecordAttempt on its delivery's state). */
export type WebhookAttemptsCommand = { type: 'RecordAttempts'; webhook_id: string; account_id: string; attempts: AttemptEntry[] };

export const decideWebhookAttempts = (command: WebhookAttemptsCommand, state: WebhookAttemptsState): WebhookAttemptsRecorded[] => {
  if (state.webhookId !== null) throw new DomainError('conflict', 'an attempt record is written once');
  if (command.attempts.length === 0) return [];
  if (command.attempts.some((entry) => entry.webhook_id !== command.webhook_id)) throw new DomainError('validation_failed', 'an attempt record holds one endpoint\'s attempts');
  return [{ type: 'WebhookAttemptsRecorded', data: { webhook_id: command.webhook_id, account_id: command.account_id, attempts: command.attempts } }];
};

export const webhookAttemptsDecider: Decider<WebhookAttemptsState, WebhookAttemptsCommand, WebhookAttemptsRecorded> = {
  decide: decideWebhookAttempts,
  evolve: evolveWebhookAttempts,
  initialState: () => ({ webhookId: null, attempts: [] }),
};

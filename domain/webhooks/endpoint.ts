import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

export const webhookStream = (webhookId: string): string => `webhook-${webhookId}`;

/**
 * A webhook endpoint. The signing secret travels only encrypted (`signing_secret_encrypted`,
 * opaque to the domain); `legacy_unsigned` marks endpoints imported from before signing existed,
 * which have no secret and are sent unsigned until their secret is rotated.
 */
export type WebhookEndpointRegistered = Event<
  'WebhookEndpointRegistered',
  {
    webhook_id: string;
    account_id: string;
    url: string;
    /** The endpoint's name (TheCatAPI's `name`); absent on endpoints registered before names existed. */
    name?: string | null;
    description: string;
    enabled_events: string[];
    signing_secret_encrypted: string | null;
    legacy_unsigned: boolean;
    registered_at: string;
  }
>;
export type WebhookSecretRotated = Event<
  'WebhookSecretRotated',
  { webhook_id: string; account_id: string; signing_secret_encrypted: string; rotated_at: string }
>;
export type WebhookAttemptFailed = Event<
  'WebhookAttemptFailed',
  { webhook_id: string; account_id: string; delivery_id: string; consecutive_failures: number; failed_at: string }
>;
export type WebhookFailuresReset = Event<
  'WebhookFailuresReset',
  { webhook_id: string; account_id: string; delivery_id: string; reset_at: string }
>;
export type WebhookDisabled = Event<
  'WebhookDisabled',
  { webhook_id: string; account_id: string; url: string; consecutive_failures: number; reason: string; disabled_at: string }
>;
export type WebhookEndpointDeleted = Event<'WebhookEndpointDeleted', { webhook_id: string; account_id: string; deleted_at: string }>;

export type WebhookEndpointEvent =
  | WebhookEndpointRegistered
  | WebhookSecretRotated
  | WebhookAttemptFailed
  | WebhookFailuresReset
  | WebhookDisabled
  | WebhookEndpointDeleted;

/** The events of `webhook-…` streams, told apart where they are read back. */
export const webhookEndpointEvents = streamEvents<WebhookEndpointEvent>('webhook', { WebhookEndpointRegistered: true, WebhookSecretRotated: true, WebhookAttemptFailed: true, WebhookFailuresReset: true, WebhookDisabled: true, WebhookEndpointDeleted: true });

export type WebhookEndpointState =
  | { status: 'none' }
  | {
      status: 'enabled' | 'disabled' | 'deleted';
      webhookId: string;
      accountId: string;
      url: string;
      enabledEvents: string[];
      signingSecretEncrypted: string | null;
      legacyUnsigned: boolean;
      consecutiveFailures: number;
    };

export const initialWebhookEndpointState = (): WebhookEndpointState => ({ status: 'none' });

export const evolveWebhookEndpoint = (state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState => {
  if (event.type === 'WebhookEndpointRegistered') {
    return {
      status: 'enabled',
      webhookId: event.data.webhook_id,
      accountId: event.data.account_id,
      url: event.data.url,
      enabledEvents: [...event.data.enabled_events],
      signingSecretEncrypted: event.data.signing_secret_encrypted,
      legacyUnsigned: event.data.legacy_unsigned,
      consecutiveFailures: 0,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'WebhookSecretRotated':
      return { ...state, signingSecretEncrypted: event.data.signing_secret_encrypted, legacyUnsigned: false };
    case 'WebhookAttemptFailed':
      return { ...state, consecutiveFailures: event.data.consecutive_failures };
    case 'WebhookFailuresReset':
      return { ...state, consecutiveFailures: 0 };
    case 'WebhookDisabled':
      return { ...state, status: 'disabled' };
    case 'WebhookEndpointDeleted':
      return { ...state, status: 'deleted' };
  }
};

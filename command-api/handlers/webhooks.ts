import { randomBytes } from 'node:crypto';
import { Collections, type WebhookDeliveryDoc } from '../../contracts/read-models.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import { webhookDeliveryDecider, webhookEndpointDecider, webhookRegistryDecider } from '../../domain/webhooks/decide.ts';
import { webhookStream, type WebhookEndpointRegistered, type WebhookEndpointState } from '../../domain/webhooks/endpoint.ts';
import { webhookRegistryStream } from '../../domain/webhooks/registry.ts';
import { webhookDeliveryStream, type WebhookDeliveryStatus } from '../../domain/webhooks/delivery.ts';
import { handleCommand, stateOf, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import type { ReadStore } from '../../infrastructure/read-store/port.ts';
import { randomId } from '../../infrastructure/ids.ts';
import { checkWebhookUrl } from '../../infrastructure/webhooks/target-policy.ts';
import type { WebhookCommandSettings } from '../deps.ts';

/** A signing secret: `whsec_` + 32 random bytes (base64url). Returned once; stored only encrypted. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export type RegisterWebhookInput = {
  account_id: string;
  url: string;
  name: string | null;
  description: string;
  enabled_events: string[];
  legacy_unsigned: boolean;
};

const now = () => new Date().toISOString();

const assertUrlAllowed = async (settings: WebhookCommandSettings, url: string): Promise<void> => {
  const reason = await checkWebhookUrl(url, { allowPrivate: settings.allowPrivateTargets, resolve: settings.resolve });
  if (reason) throw new DomainError('webhook_url_not_allowed', `webhook url not allowed: ${reason}`, { extra: { url } });
};

const endpointState = async (store: EventStore, webhookId: string): Promise<WebhookEndpointState> =>
  (await stateOf(store, webhookStream(webhookId), webhookEndpointDecider)).state;

/**
 * Registers an endpoint within the limit of five per account: first a slot in the account's
 * registry stream (appended at the revision read, retried on a concurrent change, so concurrent
 * registrations cannot overshoot), then the endpoint's own stream.
 */
export const registerWebhook = async (
  store: EventStore,
  settings: WebhookCommandSettings,
  input: RegisterWebhookInput,
  context: CommandContext,
): Promise<{ endpoint: WebhookEndpointRegistered['data']; signingSecret: string | null; position: bigint | null }> => {
  await assertUrlAllowed(settings, input.url);
  const webhookId = randomId(12);
  const registry = webhookRegistryStream(input.account_id);
  const { state: slots } = await stateOf(store, registry, webhookRegistryDecider);
  const live: string[] = [];
  for (const id of slots.slots.keys()) {
    const state = await endpointState(store, id);
    if (state.status === 'enabled' || state.status === 'disabled') live.push(id);
  }
  await handleCommand(
    store,
    registry,
    webhookRegistryDecider,
    { type: 'TakeSlot', account_id: input.account_id, webhook_id: webhookId, live_webhook_ids: live, now: now() },
    context,
    { retries: 100 },
  );
  const signingSecret = input.legacy_unsigned ? null : newSigningSecret();
  const result = await handleCommand(
    store,
    webhookStream(webhookId),
    webhookEndpointDecider,
    {
      type: 'RegisterEndpoint',
      webhook_id: webhookId,
      account_id: input.account_id,
      url: input.url,
      name: input.name,
      description: input.description,
      enabled_events: input.enabled_events,
      signing_secret_encrypted: signingSecret === null ? null : settings.secrets.encrypt(signingSecret, webhookId),
      legacy_unsigned: input.legacy_unsigned,
      now: now(),
    },
    context,
    { retries: 0 },
  );
  return { endpoint: (result.events[0] as WebhookEndpointRegistered).data, signingSecret, position: result.position };
};

/** A new secret; the old one stops working at once (every later attempt is signed with the new one). */
export const rotateWebhookSecret = async (
  store: EventStore,
  settings: WebhookCommandSettings,
  webhookId: string,
  accountId: string,
  context: CommandContext,
): Promise<{ signingSecret: string; position: bigint | null }> => {
  const signingSecret = newSigningSecret();
  const result = await handleCommand(
    store,
    webhookStream(webhookId),
    webhookEndpointDecider,
    { type: 'RotateSecret', account_id: accountId, signing_secret_encrypted: settings.secrets.encrypt(signingSecret, webhookId), now: now() },
    context,
  );
  return { signingSecret, position: result.position };
};

/** Removes the endpoint, then gives its slot back. */
export const deleteWebhook = async (store: EventStore, webhookId: string, accountId: string, context: CommandContext) => {
  const deleted = await handleCommand(store, webhookStream(webhookId), webhookEndpointDecider, { type: 'DeleteEndpoint', account_id: accountId, now: now() }, context);
  const released = await handleCommand(
    store,
    webhookRegistryStream(accountId),
    webhookRegistryDecider,
    { type: 'ReleaseSlot', account_id: accountId, webhook_id: webhookId, now: now() },
    context,
    { retries: 100 },
  );
  return { position: released.position ?? deleted.position };
};

/** How long a redelivery waits for the delivery log to reach the head of the event log. */
const DELIVERY_LOG_WAIT_MS = 5_000;

/**
 * Starts a new round of (up to three) attempts of a finished delivery of an enabled endpoint. The
 * dispatcher records attempts in attempt records, not on the delivery's stream, so whether the
 * delivery is finished is read from the delivery log (once it has reached the head of the event
 * log, read after the stream: it has seen at least what the stream held); the request is appended
 * to the delivery's stream at the revision read, so of two requests at once one wins and the other,
 * decided again, finds the delivery pending (409). Without the read models (a process given none)
 * the stream alone decides.
 */
export const redeliverWebhook = async (
  store: EventStore,
  webhookId: string,
  deliveryId: string,
  accountId: string,
  context: CommandContext,
  readStore?: ReadStore,
) => {
  const endpoint = await endpointState(store, webhookId);
  if (endpoint.status === 'none' || endpoint.status === 'deleted') throw new DomainError('not_found', 'webhook endpoint not found');
  if (endpoint.accountId !== accountId) throw new DomainError('forbidden', 'this webhook endpoint belongs to another account');
  if (endpoint.status === 'disabled') throw new DomainError('webhook_disabled', 'this webhook endpoint is disabled and cannot receive deliveries');
  const stream = webhookDeliveryStream(deliveryId);
  for (let attempt = 1; ; attempt++) {
    const folded = await stateOf(store, stream, webhookDeliveryDecider);
    let logged: { status: WebhookDeliveryStatus; webhook_id: string; account_id: string } | null | undefined;
    if (readStore) {
      const head = await store.headPosition();
      if (!(await readStore.waitForCheckpoints(['webhook_deliveries'], head, DELIVERY_LOG_WAIT_MS))) {
        throw new DomainError('consistency_timeout', 'the delivery log is catching up; try again', { retryAfterSeconds: 1 });
      }
      const doc = await readStore.collection<WebhookDeliveryDoc>(Collections.webhookDeliveries).get(deliveryId);
      logged = doc ? { status: doc.status, webhook_id: doc.webhook_id, account_id: doc.account_id } : null;
    }
    try {
      const result = await handleCommand(
        store,
        stream,
        webhookDeliveryDecider,
        { type: 'RequestRedelivery', delivery_id: deliveryId, account_id: accountId, webhook_id: webhookId, now: now(), ...(logged === undefined ? {} : { logged }) },
        context,
        { known: folded, retries: 0 },
      );
      return { position: result.position };
    } catch (error) {
      if (!(isDomainError(error) && error.code === 'conflict') || attempt >= 5) throw error;
    }
  }
};

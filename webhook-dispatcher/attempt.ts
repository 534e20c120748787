import { randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { isDomainError } from '../domain/errors.ts';
import { webhookDeliveryDecider, webhookEndpointDecider } from '../domain/webhooks/decide.ts';
import { webhookDeliveryStream, type WebhookDeliveryAttempted } from '../domain/webhooks/delivery.ts';
import { webhookStream } from '../domain/webhooks/endpoint.ts';
import { MAX_BACKOFF_JITTER_MS } from '../domain/webhooks/policy.ts';
import { handleCommand, stateOf, type CommandContext } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { SecretBox } from '../infrastructure/secrets/secret-box.ts';
import { chatServiceOf, formatChatMessage } from './chat-format.ts';
import type { DeliveryResult, HttpDelivery } from './http-delivery.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export type AttemptDeps = {
  eventStore: EventStore;
  secrets: SecretBox;
  http: HttpDelivery;
  logger: Logger;
  /** Puts the delivery back on the timetable (its next retry). */
  enqueue: (deliveryId: string, atMs: number) => void;
};

export const dispatcherContext = (accountId: string, causationId: string | null = null): CommandContext => ({
  accountId,
  requestId: null,
  causationId,
  actor: 'system:webhook-dispatcher',
});

const USER_AGENT = 'animal-data-webhooks/1.0';

/**
 * One attempt of one delivery, decided from the streams as they are now: the delivery must still
 * be pending and due, its endpoint enabled; the body is signed with the endpoint's current secret
 * (so a rotation applies to the very next retry). The outcome is appended to the delivery stream
 * at the revision read before the attempt (re-read on a concurrent append; a second worker's
 * duplicate is dropped) and to the endpoint's failure count, which disables the endpoint at ten
 * consecutive failures.
 */
export const runAttempt = async (deliveryId: string, deps: AttemptDeps): Promise<void> => {
  const stream = webhookDeliveryStream(deliveryId);
  const folded = await stateOf(deps.eventStore, stream, webhookDeliveryDecider);
  const delivery = folded.state;
  if (delivery.status !== 'pending') return;
  const dueAt = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) : 0;
  if (dueAt > Date.now() + 10) {
    deps.enqueue(deliveryId, dueAt);
    return;
  }
  const context = dispatcherContext(delivery.accountId);
  const { state: endpoint } = await stateOf(deps.eventStore, webhookStream(delivery.webhookId), webhookEndpointDecider);
  if (endpoint.status !== 'enabled') {
    const reason = endpoint.status === 'disabled' ? 'endpoint disabled' : 'endpoint deleted';
    await handleCommand(deps.eventStore, stream, webhookDeliveryDecider, { type: 'AbandonDelivery', reason, now: new Date().toISOString() }, context);
    return;
  }

  const attempt = delivery.attempts + 1;
  const startedAt = new Date().toISOString();
  let result: DeliveryResult;
  let secret: string | null = null;
  let secretError: string | null = null;
  if (!endpoint.legacyUnsigned && endpoint.signingSecretEncrypted) {
    try {
      secret = deps.secrets.decrypt(endpoint.signingSecretEncrypted, endpoint.webhookId);
    } catch {
      secretError = 'the signing secret cannot be decrypted (was SECRETS_KEY changed?); rotate the secret';
    }
  }
  if (secretError) {
    result = { success: false, statusCode: null, error: secretError, durationMs: 0 };
  } else {
    const chat = chatServiceOf(endpoint.url);
    const body = JSON.stringify(chat ? formatChatMessage(chat, delivery.eventType, delivery.payload) : delivery.payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-webhook-event': delivery.eventType,
      'x-webhook-delivery': deliveryId,
      'x-webhook-attempt': String(attempt),
    };
    if (secret) headers[SIGNATURE_HEADER] = signatureHeader(secret, body, Math.floor(Date.now() / 1000));
    result = await deps.http.post(endpoint.url, body, headers);
  }

  let attempted: WebhookDeliveryAttempted['data'];
  try {
    const recorded = await handleCommand(
      deps.eventStore,
      stream,
      webhookDeliveryDecider,
      {
        type: 'RecordAttempt',
        attempt,
        started_at: startedAt,
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        error: result.error,
        success: result.success,
        jitter_ms: randomInt(MAX_BACKOFF_JITTER_MS + 1),
        now: new Date().toISOString(),
      },
      context,
      { known: folded },
    );
    attempted = (recorded.events[0] as WebhookDeliveryAttempted).data;
  } catch (error) {
    if (isDomainError(error) && error.code === 'conflict') return; // another worker recorded this attempt
    throw error;
  }
  deps.logger.info(
    { delivery_id: deliveryId, webhook_id: delivery.webhookId, attempt, status_code: result.statusCode, error: result.error, outcome: attempted.outcome, duration_ms: result.durationMs },
    'webhook attempt',
  );
  await handleCommand(
    deps.eventStore,
    webhookStream(delivery.webhookId),
    webhookEndpointDecider,
    { type: 'RecordAttemptOutcome', delivery_id: deliveryId, success: result.success, now: new Date().toISOString() },
    context,
    { retries: 50 },
  );
  if (attempted.outcome === 'retrying' && attempted.next_attempt_at) deps.enqueue(deliveryId, Date.parse(attempted.next_attempt_at));
};

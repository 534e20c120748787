import { createHash, randomInt } from 'node:crypto';
import type { Logger } from 'pino';
import { webhookEndpointDecider } from '../domain/webhooks/decide.ts';
import type { AttemptSignature } from '../domain/webhooks/delivery.ts';
import { webhookStream } from '../domain/webhooks/endpoint.ts';
import { MAX_BACKOFF_JITTER_MS } from '../domain/webhooks/policy.ts';
import { handleCommand } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { SecretBox } from '../infrastructure/secrets/secret-box.ts';
import type { AttemptLog } from './attempt-log.ts';
import { chatServiceOf, formatChatMessage } from './chat-format.ts';
import { deliveryView, dispatcherContext, readDelivery, recordAttempt, recordOnDelivery, type Delivery } from './delivery-record.ts';
import type { EndpointTable } from './endpoints.ts';
import type { EndpointHealth } from './endpoint-health.ts';
import type { DeliveryResult, HttpDelivery } from './http-delivery.ts';
import { SIGNATURE_HEADER, signatureHeader } from './signature.ts';

export type AttemptDeps = {
  eventStore: EventStore;
  readStore: ReadStore;
  attemptLog: AttemptLog;
  endpoints: EndpointTable;
  secrets: SecretBox;
  http: HttpDelivery;
  logger: Logger;
  /** Puts the delivery back on the timetable (its next retry); false when the timetable is full. */
  enqueue: (delivery: Delivery, atMs: number) => boolean;
  /** Requests out and answers per endpoint (what tells a stuck endpoint from a busy one). */
  health: EndpointHealth;
  /** Attempts whose records are on their way (awaited at stop). */
  recordings: Set<Promise<unknown>>;
  /** Failure counts are written one at a time per endpoint (they are one stream). */
  endpointWrites: Map<string, Promise<unknown>>;
};

const USER_AGENT = 'animal-data-webhooks/1.0';

/** Which secret signed an attempt: a fingerprint of the stored (encrypted) secret, made once per secret. */
const secretIds = new Map<string, string>();
const secretIdOf = (encrypted: string): string => {
  let id = secretIds.get(encrypted);
  if (id === undefined) {
    id = createHash('sha256').update(encrypted).digest('hex').slice(0, 16);
    if (secretIds.size >= 1000) secretIds.clear();
    secretIds.set(encrypted, id);
  }
  return id;
};

/**
 * Each attempt's outcome goes to the endpoint's stream only when it changes something: a failure
 * (counting towards disabling at ten in a row) or the first success after failures (the reset).
 * The table's count is current within the subscription's lag; the endpoint's stream decides.
 */
const recordEndpointOutcome = (delivery: Delivery, success: boolean, deps: AttemptDeps): Promise<unknown> => {
  const previous = deps.endpointWrites.get(delivery.webhookId) ?? Promise.resolve();
  const next = previous.then(() =>
    handleCommand(
      deps.eventStore,
      webhookStream(delivery.webhookId),
      webhookEndpointDecider,
      { type: 'RecordAttemptOutcome', delivery_id: delivery.id, success, now: new Date().toISOString() },
      dispatcherContext(delivery.accountId),
      { retries: 50 },
    ),
  );
  const settled = next.catch(() => undefined);
  deps.endpointWrites.set(delivery.webhookId, settled);
  void settled.then(() => {
    if (deps.endpointWrites.get(delivery.webhookId) === settled) deps.endpointWrites.delete(delivery.webhookId);
  });
  return next;
};

/**
 * One attempt of one delivery: it must still be pending and due, its endpoint enabled (from the
 * endpoint table, kept current from the endpoint's events); the body — serialised once per
 * delivery — is signed with the endpoint's current secret (so a rotation applies to the very next
 * retry). The outcome is an entry of the endpoint's next attempt record (attempt-log.ts), written
 * with the other attempts to that endpoint that finished meanwhile. A retry goes back on the
 * timetable once its attempt is recorded, or stays in the store when the timetable is full.
 */
export const runAttempt = async (delivery: Delivery, deps: AttemptDeps): Promise<void> => {
  if (!delivery.known) await readDelivery(deps.readStore, delivery);
  const view = deliveryView(delivery);
  if (view.status !== 'pending') return;
  const dueAt = view.nextAttemptAt ? Date.parse(view.nextAttemptAt) : 0;
  if (dueAt > Date.now() + 10) {
    deps.enqueue(delivery, dueAt);
    return;
  }
  const endpoint = await deps.endpoints.get(delivery.webhookId);
  if (endpoint.status !== 'enabled') {
    const reason = endpoint.status === 'disabled' ? 'endpoint disabled' : 'endpoint deleted';
    const now = new Date().toISOString();
    await recordOnDelivery(deps, delivery, (state) =>
      state.status === 'none' && delivery.opening ? { type: 'ScheduleDelivery', ...delivery.opening, now: delivery.opening.scheduled_at } : null,
    );
    await recordOnDelivery(deps, delivery, () => ({ type: 'AbandonDelivery', reason, now }));
    return;
  }

  const attempt = view.attempts + 1;
  const startedAt = new Date().toISOString();
  let result: DeliveryResult;
  let secret: string | null = null;
  let secretError: string | null = null;
  let signature: AttemptSignature | null = null;
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
    const body = chat
      ? JSON.stringify(formatChatMessage(chat, view.eventType, view.payload))
      : (delivery.body ??= JSON.stringify(view.payload));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-webhook-event': view.eventType,
      'x-webhook-delivery': delivery.id,
      'x-webhook-attempt': String(attempt),
    };
    if (secret && endpoint.signingSecretEncrypted) {
      const t = Math.floor(Date.now() / 1000);
      headers[SIGNATURE_HEADER] = signatureHeader(secret, body, t);
      signature = { t, secret_id: secretIdOf(endpoint.signingSecretEncrypted) };
    }
    result = await deps.health.track(delivery.webhookId, () => deps.http.post(endpoint.url, body, headers));
  }

  // Recorded in the background: the attempt's slot on the timetable is free for the next attempt
  // while the record gathers other outcomes (the delivery counts as stored once it is written).
  const recording = recordAttempt(
    deps,
    delivery,
    {
      attempt,
      started_at: startedAt,
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error: result.error,
      success: result.success,
      jitter_ms: randomInt(MAX_BACKOFF_JITTER_MS + 1),
      now: new Date().toISOString(),
    },
    signature,
  ).then(async (entry) => {
    if (!entry) return; // recorded already, or no longer pending
    if (deps.logger.isLevelEnabled('info')) deps.logger.info(
      { delivery_id: delivery.id, webhook_id: delivery.webhookId, attempt, status_code: result.statusCode, error: result.error, outcome: entry.outcome, duration_ms: result.durationMs },
      'webhook attempt',
    );
    if (!result.success || endpoint.consecutiveFailures > 0) await recordEndpointOutcome(delivery, result.success, deps);
    if (entry.outcome === 'retrying' && entry.next_attempt_at) deps.enqueue(delivery, Date.parse(entry.next_attempt_at));
  });
  const settled = recording.catch((error) =>
    deps.logger.error({ err: error, delivery_id: delivery.id }, 'webhook attempt could not be recorded; the bus batch or the sweep brings its delivery back'),
  );
  deps.recordings.add(settled);
  void settled.finally(() => deps.recordings.delete(settled));
};

import { Type, type Static } from '@sinclair/typebox';
import { styleA } from './paging.ts';
import { DomainError } from '../domain/errors.ts';

/**
 * Webhook endpoints and their delivery log. `signing_secret` appears only in the answers of
 * create and rotate-secret; list and get never show it (their schemas have no such field, so the
 * serialiser drops it even if a document carried one).
 */
export const WebhookId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const WebhookIdParams = Type.Object({ id: WebhookId });
export const WebhookDeliveryParams = Type.Object({ id: WebhookId, deliveryId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

export const WebhookTopicList = Type.Array(Type.String(), { description: 'event names that can be subscribed' });

const EnabledEvents = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  description: 'event names (GET /v1/webhooks/topics); unknown names are accepted and never fire',
});

const WebhookName = Type.String({ minLength: 1, maxLength: 200, description: "the endpoint's name (TheCatAPI's `name`), kept and shown back" });
const EventsAlias = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 50,
  description: "TheCatAPI's name for `enabled_events`: give one of the two",
});

/** `enabled_events` or TheCatAPI's `events` (one of the two, required: enabledEventsOf). */
export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL of a public host' }),
    name: Type.Optional(WebhookName),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
    events: Type.Optional(EventsAlias),
  },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

/** The subscribed events of a registration body: `enabled_events` or its alias `events`, exactly one of them. */
export const enabledEventsOf = (body: { enabled_events?: string[]; events?: string[] }): string[] => {
  if (body.enabled_events !== undefined && body.events !== undefined) {
    throw new DomainError('validation_failed', 'body has both enabled_events and events', { details: ['body must have enabled_events or events (its alias), not both'] });
  }
  const events = body.enabled_events ?? body.events;
  if (events === undefined) throw new DomainError('validation_failed', 'body has no enabled_events', { details: ["body must have required property 'enabled_events' (or its alias 'events')"] });
  return events;
};

export const ImportWebhookBody = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    name: Type.Optional(WebhookName),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    enabled_events: Type.Optional(EnabledEvents),
    events: Type.Optional(EventsAlias),
    legacy_unsigned: Type.Optional(
      Type.Boolean({ description: 'an endpoint from before signing existed: sent unsigned until its secret is rotated' }),
    ),
  },
  { additionalProperties: false },
);
export type ImportWebhookBody = Static<typeof ImportWebhookBody>;

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    name: Type.Union([Type.String(), Type.Null()], { description: 'null when none was given' }),
    description: Type.String(),
    enabled_events: Type.Array(Type.String()),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
      description: 'disabled after 10 consecutive failed attempts; a disabled endpoint cannot be re-enabled',
    }),
    signed: Type.Boolean({ description: 'false for a legacy endpoint that is sent unsigned until its secret is rotated' }),
    consecutive_failures: Type.Integer(),
    created_at: Type.String({ format: 'date-time' }),
    disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    secret_rotated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: 'A webhook endpoint (never shows its signing secret)' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

const SigningSecret = Type.String({ pattern: '^whsec_', description: 'shown only here, once; keep it to verify X-Webhook-Signature' });

export const CreatedWebhook = Type.Composite([
  Type.Object({ message: Type.Literal('SUCCESS') }),
  WebhookEndpoint,
  Type.Object({ signing_secret: Type.Union([SigningSecret, Type.Null()], { description: 'null only for a legacy unsigned import' }) }),
]);

export const RotatedSecret = Type.Object({ message: Type.Literal('SUCCESS'), id: Type.String(), signing_secret: SigningSecret });

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('abandoned')]);

export const WebhookAttempt = Type.Object({
  attempt: Type.Integer(),
  started_at: Type.String({ format: 'date-time' }),
  duration_ms: Type.Integer(),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('retrying'), Type.Literal('failed')]),
});

export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    webhook_id: Type.String(),
    event_id: Type.String({ description: 'the domain event id, also _metadata.event_id in the body: de-duplicate on it' }),
    event_type: Type.String(),
    status: DeliveryStatus,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    next_attempt_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    status_reason: Type.Union([Type.String(), Type.Null()]),
    attempts: Type.Array(WebhookAttempt),
    payload: Type.Object({}, { additionalProperties: true, description: 'the JSON body delivered' }),
  },
  { description: 'One event delivered to one endpoint, with every attempt' },
);

export const ListDeliveriesQuery = Type.Object({
  ...styleA({ limit: 10, order: 'DESC' }),
  status: Type.Optional(DeliveryStatus),
});
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const RedeliveryAccepted = Type.Object({ message: Type.Literal('SUCCESS'), id: Type.String(), status: Type.Literal('pending') });

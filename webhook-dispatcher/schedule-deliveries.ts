import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import type { DeliveryOpening } from '../domain/webhooks/delivery.ts';
import type { RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { imageViews } from '../http/image-views.ts';
import { deliveryIdFor, mappingFor, NO_IMAGES, webhookPayload } from './event-mapping.ts';

/** How long domain events wait for the endpoints read model to have seen everything before them. */
const ENDPOINTS_CATCH_UP_MS = 5_000;
/**
 * How long a batch whose bodies embed an image the images read model does not have waits for that
 * read model to reach the batch (an image uploaded just before the vote may not be projected yet).
 * Not reached, or still unknown: the body embeds its id alone, as the API's answer would; the
 * deliveries are not held back further.
 */
const IMAGES_CATCH_UP_MS = 1_000;

/** The endpoints read model has not reached a batch's events: the batch fails and the bus hands it over again. */
export class EndpointsBehindError extends Error {
  constructor(readonly position: bigint) {
    super(`the webhooks read model has not reached position ${position} yet; the batch is retried`);
    this.name = 'EndpointsBehindError';
  }
}

/** One delivery a domain event calls for: the event to one subscribed endpoint. */
export type PlannedDelivery = {
  opening: DeliveryOpening;
  correlationId: string | null;
};

/**
 * The deliveries a batch of domain events calls for: each account's enabled endpoints subscribed
 * to the event's webhook name, one delivery per (event, endpoint), its id derived from both (so
 * an event handed over twice maps to the same delivery). Nothing is written here; the dispatcher
 * attempts them and records each outcome.
 *
 * Work is shared across the batch: one wait for the endpoints projection (up to the batch's last
 * event, so an endpoint registered just before an event sees it) and one endpoint lookup per
 * account. If the endpoints read model does not reach the batch within the wait, the batch fails
 * (EndpointsBehindError), so the bus offset stays and the batch comes again: events are never
 * matched against an endpoint list older than they are. A repeated event in one batch counts once.
 *
 * Bodies that embed an image (vote.created, favourite.created) carry the Image the event's account
 * sees, as the API's answer does (http/image-views.ts): one read of the batch's images, one per
 * kind of join, whatever the number of events.
 */
export const planDeliveries = async (
  events: readonly RecordedEvent[],
  deps: { readStore: ReadStore; publicBaseUrl?: string },
  options: { catchUpMs?: number; imagesCatchUpMs?: number; now?: () => string } = {},
): Promise<PlannedDelivery[]> => {
  const mapped = [];
  for (const event of events) {
    const mapping = mappingFor(event.type);
    const accountId = mapping?.accountId(event);
    if (mapping && accountId) mapped.push({ event, mapping, accountId });
  }
  if (mapped.length === 0) return [];
  const last = mapped.reduce((highest, { event }) => (event.position > highest ? event.position : highest), 0n);
  if (!(await deps.readStore.waitForCheckpoints(['webhooks'], last, options.catchUpMs ?? ENDPOINTS_CATCH_UP_MS))) throw new EndpointsBehindError(last);

  const endpointsOf = new Map<string, Promise<WebhookDoc[]>>();
  const lookUp = (accountId: string) => {
    let found = endpointsOf.get(accountId);
    if (!found) {
      found = deps.readStore.collection<WebhookDoc>(Collections.webhooks).find({ account_id: accountId, status: 'enabled' });
      endpointsOf.set(accountId, found);
    }
    return found;
  };
  const now = options.now?.() ?? new Date().toISOString();
  const subscribed = [];
  for (const { event, mapping, accountId } of mapped) {
    const endpoints = (await lookUp(accountId)).filter((endpoint) => endpoint.enabled_events.includes(mapping.webhookEvent));
    if (endpoints.length > 0) subscribed.push({ event, mapping, accountId, endpoints });
  }
  // The images the bodies embed, each as its event's account sees it: one read for the batch.
  const wanted = subscribed.flatMap(({ event, mapping, accountId }) => (mapping.embedsImage ? [{ imageId: mapping.embedsImage(event), accountId }] : []));
  let images = NO_IMAGES;
  if (wanted.length > 0) {
    const views = imageViews(deps.readStore, deps.publicBaseUrl);
    images = await views.embeddedFor(deps.publicBaseUrl ?? '', wanted);
    if (images.missing.length > 0 && (await deps.readStore.waitForCheckpoints(['images'], last, 0)) === false) {
      if (await deps.readStore.waitForCheckpoints(['images'], last, options.imagesCatchUpMs ?? IMAGES_CATCH_UP_MS)) images = await views.embeddedFor(deps.publicBaseUrl ?? '', wanted);
    }
  }
  const planned = new Map<string, PlannedDelivery>();
  for (const { event, mapping, accountId, endpoints } of subscribed) {
    const payload = webhookPayload(mapping, event, deps.publicBaseUrl, images);
    for (const endpoint of endpoints) {
      const deliveryId = deliveryIdFor(event.id, endpoint.id);
      if (planned.has(deliveryId)) continue;
      planned.set(deliveryId, {
        opening: {
          delivery_id: deliveryId,
          webhook_id: endpoint.id,
          account_id: accountId,
          event_id: event.id,
          event_type: mapping.webhookEvent,
          payload,
          scheduled_at: now,
        },
        correlationId: event.metadata.correlation_id,
      });
    }
  }
  return [...planned.values()];
};

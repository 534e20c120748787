import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import { webhookDeliveryDecider } from '../domain/webhooks/decide.ts';
import { webhookDeliveryStream } from '../domain/webhooks/delivery.ts';
import { handleCommand } from '../infrastructure/event-store/command-handler.ts';
import { isWrongExpectedRevision, type EventStore, type RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { dispatcherContext } from './attempt.ts';
import { deliveryIdFor, mappingFor, webhookPayload, type WebhookEventMapping } from './event-mapping.ts';

/** How long domain events wait for the endpoints read model to have seen everything before them. */
const ENDPOINTS_CATCH_UP_MS = 5_000;

/** The endpoints read model has not reached a batch's events: the batch fails and the bus hands it over again. */
export class EndpointsBehindError extends Error {
  constructor(readonly position: bigint) {
    super(`the webhooks read model has not reached position ${position} yet; the batch is retried`);
    this.name = 'EndpointsBehindError';
  }
}

type Mapped = { event: RecordedEvent; mapping: WebhookEventMapping; accountId: string };

/**
 * The bus handler's whole job for a batch of domain events: find each account's enabled endpoints
 * subscribed to the event's webhook name and append one WebhookDeliveryScheduled per endpoint (a
 * stream per delivery, its id derived from event and endpoint). It never waits for a delivery:
 * it returns the ids for the timetable.
 *
 * Work is shared across the batch: one wait for the endpoints projection (up to the batch's last
 * event, so an endpoint registered just before an event sees it), one endpoint lookup per account,
 * and every append at once (the event store commits them together). A delivery stream is new by
 * construction; when the bus hands an event over again the append finds it exists and nothing
 * new is scheduled — its id is still returned, the attempt re-reads the stream anyway.
 *
 * If the endpoints read model does not reach the batch within the wait, nothing is scheduled and
 * the batch fails (EndpointsBehindError), so the bus offset stays and the batch comes again:
 * events are never matched against an endpoint list older than they are.
 */
export const scheduleDeliveries = async (
  events: readonly RecordedEvent[],
  deps: { eventStore: EventStore; readStore: ReadStore },
  options: { catchUpMs?: number } = {},
): Promise<string[]> => {
  const mapped: Mapped[] = [];
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

  const scheduled = await Promise.all(
    mapped.map(async ({ event, mapping, accountId }) => {
      const endpoints = (await lookUp(accountId)).filter((endpoint) => endpoint.enabled_events.includes(mapping.webhookEvent));
      if (endpoints.length === 0) return [];
      const payload = webhookPayload(mapping, event);
      return Promise.all(
        endpoints.map(async (endpoint) => {
          const deliveryId = deliveryIdFor(event.id, endpoint.id);
          try {
            await handleCommand(
              deps.eventStore,
              webhookDeliveryStream(deliveryId),
              webhookDeliveryDecider,
              {
                type: 'ScheduleDelivery',
                delivery_id: deliveryId,
                webhook_id: endpoint.id,
                account_id: accountId,
                event_id: event.id,
                event_type: mapping.webhookEvent,
                payload,
                now: new Date().toISOString(),
              },
              { ...dispatcherContext(accountId, event.id), correlationId: event.metadata.correlation_id },
              { newStream: true },
            );
          } catch (error) {
            if (!isWrongExpectedRevision(error)) throw error; // already scheduled by an earlier hand-over
          }
          return deliveryId;
        }),
      );
    }),
  );
  return scheduled.flat();
};

import { Collections, type WebhookDoc } from '../contracts/read-models.ts';
import { webhookDeliveryDecider } from '../domain/webhooks/decide.ts';
import { webhookDeliveryStream } from '../domain/webhooks/delivery.ts';
import { handleCommand } from '../infrastructure/event-store/command-handler.ts';
import type { EventStore, RecordedEvent } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import { dispatcherContext } from './attempt.ts';
import { deliveryIdFor, mappingFor, webhookPayload } from './event-mapping.ts';

/** How long a domain event waits for the endpoints read model to have seen everything before it. */
const ENDPOINTS_CATCH_UP_MS = 5_000;

/**
 * The bus handler's whole job for a domain event: find the account's enabled endpoints subscribed
 * to its webhook name and append one WebhookDeliveryScheduled per endpoint (a stream per delivery,
 * its id derived from event and endpoint, so a redelivered bus message schedules nothing new).
 * It never waits for a delivery: it returns the ids for the timetable.
 */
export const scheduleDeliveries = async (event: RecordedEvent, deps: { eventStore: EventStore; readStore: ReadStore }): Promise<string[]> => {
  const mapping = mappingFor(event.type);
  if (!mapping) return [];
  const accountId = mapping.accountId(event);
  if (!accountId) return [];
  // An endpoint registered just before this event must see it: wait for its projection to get here.
  await deps.readStore.waitForCheckpoints(['webhooks'], event.position, ENDPOINTS_CATCH_UP_MS);
  const endpoints = await deps.readStore
    .collection<WebhookDoc>(Collections.webhooks)
    .find({ account_id: accountId, status: 'enabled', enabled_events: mapping.webhookEvent });
  if (endpoints.length === 0) return [];
  const payload = webhookPayload(mapping, event);
  const ids: string[] = [];
  for (const endpoint of endpoints) {
    const deliveryId = deliveryIdFor(event.id, endpoint.id);
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
    );
    ids.push(deliveryId);
  }
  return ids;
};

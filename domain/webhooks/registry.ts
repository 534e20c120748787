import type { Event } from '../decider.ts';
import { streamEvents } from '../stream-events.ts';

/**
 * The per-account registry of endpoint slots: the limit of five endpoints (disabled ones included)
 * is a stream of its own, appended with the revision that was read, so concurrent registrations
 * cannot both take the fifth slot.
 */
export const webhookRegistryStream = (accountId: string): string => `webhookregistry-${accountId}`;

export type WebhookSlotTaken = Event<'WebhookSlotTaken', { account_id: string; webhook_id: string; taken_at: string }>;
export type WebhookSlotReleased = Event<'WebhookSlotReleased', { account_id: string; webhook_id: string; released_at: string }>;
export type WebhookRegistryEvent = WebhookSlotTaken | WebhookSlotReleased;

/** The events of `webhookregistry-…` streams, told apart where they are read back. */
export const webhookRegistryEvents = streamEvents<WebhookRegistryEvent>('webhookregistry', { WebhookSlotTaken: true, WebhookSlotReleased: true });

/** Slots held, by webhook id → when taken. */
export type WebhookRegistryState = { slots: ReadonlyMap<string, string> };

export const initialWebhookRegistryState = (): WebhookRegistryState => ({ slots: new Map() });

export const evolveWebhookRegistry = (state: WebhookRegistryState, event: WebhookRegistryEvent): WebhookRegistryState => {
  const slots = new Map(state.slots);
  if (event.type === 'WebhookSlotTaken') slots.set(event.data.webhook_id, event.data.taken_at);
  else slots.delete(event.data.webhook_id);
  return { slots };
};

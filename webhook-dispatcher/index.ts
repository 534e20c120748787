import type { Logger } from 'pino';
import type { Bus } from '../infrastructure/bus/port.ts';
import type { EventStore } from '../infrastructure/event-store/port.ts';
import type { ReadStore } from '../infrastructure/read-store/port.ts';
import type { Mailer } from '../infrastructure/mail/port.ts';

export type DispatcherDeps = { bus: Bus; eventStore: EventStore; readStore: ReadStore; mailer: Mailer; logger: Logger };

/**
 * The webhook dispatcher: consumes the bus in its own group and delivers signed webhooks.
 * Webhook endpoints are not part of the service yet, so there is nothing to deliver; this is the
 * process's entry point that the webhooks work fills in.
 */
export const startDispatcher = async (deps: DispatcherDeps): Promise<{ stop: () => Promise<void> }> => {
  deps.logger.info('webhook dispatcher started (no webhook endpoints exist yet)');
  return { stop: async () => undefined };
};

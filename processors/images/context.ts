import type { CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/port.ts';

/** The metadata of what a processor appends: caused by the event it handled, in the same correlation. */
export const processorContext = (processor: string, event: Pick<RecordedEvent, 'id' | 'metadata'>): CommandContext => ({
  accountId: event.metadata.account_id,
  requestId: null,
  correlationId: event.metadata.correlation_id,
  causationId: event.id,
  actor: `system:${processor}`,
});

import { streamCategory, type RecordedEvent } from '../event-store/port.ts';
import type { IncomingMessage, OutgoingMessage } from './port.ts';

/**
 * How a recorded event travels on the bus: one topic per stream category (`events.vote`),
 * keyed by stream so one aggregate's events stay in order; bigint positions as strings.
 */
export const topicFor = (category: string): string => `events.${category}`;

export const toBusMessage = (event: RecordedEvent): OutgoingMessage => ({
  topic: topicFor(streamCategory(event.streamName)),
  key: event.streamName,
  value: JSON.stringify({
    id: event.id,
    type: event.type,
    streamName: event.streamName,
    revision: event.revision.toString(),
    position: event.position.toString(),
    data: event.data,
    metadata: event.metadata,
  }),
});

export const fromBusMessage = (message: IncomingMessage): RecordedEvent => {
  const parsed = JSON.parse(message.value);
  return { ...parsed, revision: BigInt(parsed.revision), position: BigInt(parsed.position) };
};

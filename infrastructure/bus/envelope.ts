import { streamCategory, type RecordedEvent } from '../event-store/port.ts';
import type { IncomingMessage, OutgoingMessage } from './port.ts';

/**
 * How a recorded event travels on the bus: one topic per stream category (`events.vote`),
 * keyed by stream so one aggregate's events stay in order; bigint positions as strings.
 */
/** The read-store checkpoint of the relay that feeds a broker (projectors/relay.ts). */
export const RELAY_CHECKPOINT = 'relay';

export const topicFor = (category: string): string => `events.${category}`;

/** The bus topic of a stream's events. */
export const topicOfStream = (streamName: string): string => topicFor(streamCategory(streamName));

/** The message value: the event as JSON, positions and revisions as decimal strings. */
export const envelopeOf = (event: RecordedEvent): string =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    streamName: event.streamName,
    revision: event.revision.toString(),
    position: event.position.toString(),
    data: event.data,
    metadata: event.metadata,
  });

/**
 * The same value built from a stored row whose data and metadata are already JSON text (the
 * embedded event store keeps them so): no parse and no re-serialisation, the same bytes as
 * `envelopeOf` gives for the parsed event.
 */
export const envelopeOfStored = (row: {
  id: string;
  type: string;
  streamName: string;
  revision: bigint;
  position: bigint;
  data: string;
  metadata: string;
}): string =>
  `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)},"streamName":${JSON.stringify(row.streamName)},` +
  `"revision":"${row.revision}","position":"${row.position}","data":${row.data},"metadata":${row.metadata}}`;

export const toBusMessage = (event: RecordedEvent): OutgoingMessage => ({
  topic: topicOfStream(event.streamName),
  key: event.streamName,
  value: envelopeOf(event),
});

/** The event a message carries (decoded by the bus already, or parsed from its value). */
export const fromBusMessage = (message: IncomingMessage): RecordedEvent => {
  if (message.event) return { ...message.event };
  const parsed = JSON.parse(message.value);
  return { ...parsed, revision: BigInt(parsed.revision), position: BigInt(parsed.position) };
};

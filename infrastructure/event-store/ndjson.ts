import type { EventMetadata, RecordedEvent } from './port.ts';

/**
 * One recorded event as a JSON line of an export: positions and revisions as decimal strings
 * (bigint-safe), the stream, the event id, its data and metadata exactly as stored. The same
 * shape answers the admin audit routes, so an auditor's tools read both alike.
 */
export type EventLine = {
  position: string;
  stream: string;
  revision: string;
  id: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

export const toEventLine = (event: RecordedEvent): EventLine => ({
  position: event.position.toString(),
  stream: event.streamName,
  revision: event.revision.toString(),
  id: event.id,
  type: event.type,
  data: event.data,
  metadata: event.metadata,
});

const DIGITS = /^[0-9]{1,20}$/;

export class EventLineError extends Error {}

/** Parses and checks one line of an export (throws EventLineError naming what is wrong). */
export const parseEventLine = (line: string, lineNumber: number): EventLine => {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new EventLineError(`line ${lineNumber}: not JSON`);
  }
  const candidate = value as Partial<EventLine> | null;
  const problems: string[] = [];
  if (candidate === null || typeof candidate !== 'object') throw new EventLineError(`line ${lineNumber}: not an object`);
  if (typeof candidate.position !== 'string' || !DIGITS.test(candidate.position)) problems.push('position');
  if (typeof candidate.revision !== 'string' || !DIGITS.test(candidate.revision)) problems.push('revision');
  if (typeof candidate.stream !== 'string' || candidate.stream.length === 0) problems.push('stream');
  if (typeof candidate.id !== 'string' || candidate.id.length === 0) problems.push('id');
  if (typeof candidate.type !== 'string' || candidate.type.length === 0) problems.push('type');
  if (candidate.data === null || typeof candidate.data !== 'object' || Array.isArray(candidate.data)) problems.push('data');
  if (candidate.metadata === null || typeof candidate.metadata !== 'object' || typeof candidate.metadata?.timestamp !== 'string') problems.push('metadata');
  if (problems.length > 0) throw new EventLineError(`line ${lineNumber}: missing or invalid ${problems.join(', ')}`);
  return candidate as EventLine;
};

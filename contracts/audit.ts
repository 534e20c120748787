import { Type, type Static } from '@sinclair/typebox';

/**
 * The auditor's view of the log (admin key). Positions and revisions are decimal strings: they are
 * bigints end to end (EventStoreDB positions do not fit a double), so JSON carries them as text.
 */
export const Position = Type.String({ pattern: '^[0-9]{1,20}$', description: 'a global log position (decimal, bigint-safe)' });
export const StreamName = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' });
const CommaList = (description: string) => Type.String({ maxLength: 2000, description });

export const AuditEventMetadata = Type.Object(
  {
    account_id: Type.Union([Type.String(), Type.Null()]),
    actor: Type.Union([Type.String(), Type.Null()], { description: 'api key id, `admin` or `system:<process>`' }),
    request_id: Type.Union([Type.String(), Type.Null()]),
    correlation_id: Type.Union([Type.String(), Type.Null()]),
    causation_id: Type.Union([Type.String(), Type.Null()]),
    timestamp: Type.String(),
    schema_version: Type.Integer(),
  },
  { additionalProperties: true },
);

export const AuditEvent = Type.Object({
  position: Position,
  stream: Type.String(),
  revision: Type.String({ pattern: '^[0-9]{1,20}$' }),
  id: Type.String(),
  type: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'the event as stored; secrets replaced by "[redacted]"' }),
  metadata: AuditEventMetadata,
});
export type AuditEvent = Static<typeof AuditEvent>;

export const StreamParams = Type.Object({ stream: StreamName });

export const StreamQuery = Type.Object({
  from_revision: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', description: 'first revision (inclusive), default 0' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
});

export const StreamPage = Type.Object({
  stream: Type.String(),
  events: Type.Array(AuditEvent),
  next_from_revision: Type.Union([Type.String(), Type.Null()], { description: 'null: the end of the stream' }),
});

export const LogQuery = Type.Object({
  from_position: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', description: 'first position (inclusive), default the start of the log' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  types: Type.Optional(CommaList('event types, comma-separated')),
  account_id: Type.Optional(Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })),
  stream_prefix: Type.Optional(Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' })),
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
      description: 'asc (default): from from_position on; desc: the newest events, newest first (from_position not allowed)',
    }),
  ),
});

export const LogPage = Type.Object({
  events: Type.Array(AuditEvent),
  next_from_position: Type.Union([Position, Type.Null()], {
    description: 'continue here; null: the head of the log was reached. A page may hold fewer than `limit` events: at most 10,000 events are read per request',
  }),
  head_position: Position,
});

export const HistoryQuery = Type.Object({
  from_position: LogQuery.properties.from_position,
  limit: LogQuery.properties.limit,
  types: LogQuery.properties.types,
});

export const StateQuery = Type.Object({
  at_position: Type.Optional(Type.String({ pattern: '^[0-9]{1,20}$', description: 'fold the events at or before this global position' })),
  at_time: Type.Optional(Type.String({ format: 'date-time', description: 'fold the events recorded at or before this instant' })),
});

export const StreamState = Type.Object({
  stream: Type.String(),
  category: Type.String(),
  /** Last event folded; null: the stream had no event yet at that point. */
  revision: Type.Union([Type.String(), Type.Null()]),
  position: Type.Union([Position, Type.Null()], { description: 'the global position the state reflects' }),
  timestamp: Type.Union([Type.String(), Type.Null()]),
  events_folded: Type.Integer(),
  state: Type.Unknown({ description: "the aggregate's state folded by its decider's evolve; secrets redacted" }),
});

export const ExportQuery = Type.Object({
  stream: Type.Optional(StreamName),
});

import { Type, type Static } from '@sinclair/typebox';
import { Position } from './audit.ts';

/** The operations view (admin key): projection lag, consumer groups, webhooks, background operations. */
export const ProjectionStatus = Type.Object({
  name: Type.String(),
  checkpoint: Position,
  lag_events: Type.Integer({ description: 'events between the checkpoint and the head (counted up to 10,000)' }),
  lag_seconds: Type.Number({ description: 'age of the oldest event not handled yet' }),
});

export const ConsumerGroupStatus = Type.Object({
  group: Type.String(),
  lag_messages: Type.Union([Type.Integer(), Type.Null()], { description: 'null: not consumed by this process' }),
});

export const OpsStatus = Type.Object({
  head_position: Position,
  adapters: Type.Record(Type.String(), Type.String()),
  projections: Type.Array(ProjectionStatus),
  consumer_groups: Type.Array(ConsumerGroupStatus),
  webhooks: Type.Object({
    endpoints: Type.Record(Type.String(), Type.Integer()),
    deliveries: Type.Record(Type.String(), Type.Integer()),
    disabled: Type.Array(
      Type.Object({ id: Type.String(), account_id: Type.String(), url: Type.String(), disabled_at: Type.Union([Type.String(), Type.Null()]) }),
    ),
    recent_deliveries: Type.Array(
      Type.Object({
        id: Type.String(),
        webhook_id: Type.String(),
        event_type: Type.String(),
        status: Type.String(),
        attempts: Type.Integer(),
        updated_at: Type.String(),
      }),
    ),
  }),
});

export const VerifyBody = Type.Object(
  { projection: Type.String({ minLength: 1, maxLength: 60, description: 'a projection name, or `all`' }) },
  { additionalProperties: false },
);

export const OperationIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) });

export const VerifyResult = Type.Object({
  projection: Type.String(),
  identical: Type.Boolean(),
  position: Position,
  collections: Type.Array(
    Type.Object({ name: Type.String(), live: Type.Integer(), rebuilt: Type.Integer(), differing_count: Type.Integer(), differing: Type.Array(Type.String()) }),
  ),
});

export const Operation = Type.Object({
  id: Type.String(),
  kind: Type.Literal('verify'),
  projection: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('passed'), Type.Literal('failed'), Type.Literal('error')]),
  started_at: Type.String(),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  progress: Type.Object({
    percent: Type.Number(),
    current: Type.Union([Type.String(), Type.Null()], { description: 'the projection being verified' }),
    done: Type.Integer(),
    total: Type.Integer(),
  }),
  results: Type.Array(VerifyResult),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type Operation = Static<typeof Operation>;

export const OperationList = Type.Array(Operation);

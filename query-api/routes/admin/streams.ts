import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { StateQuery, StreamPage, StreamParams, StreamQuery, StreamState } from '../../../contracts/audit.ts';
import { errors } from '../../../contracts/common.ts';
import { DomainError } from '../../../domain/errors.ts';
import { foldOf, plainState } from '../../../domain/audit/aggregates.ts';
import { redactSecrets } from '../../../domain/audit/redact.ts';
import { streamCategory, type EventStore, type RecordedEvent } from '../../../infrastructure/event-store/port.ts';
import { toAuditEvent } from '../../audit/audit-event.ts';

export type AuditDeps = { eventStore: Pick<EventStore, 'readAll' | 'readStream' | 'headPosition'> };

const STATE_BATCH = 1_000;

/** Every event of a stream at or before a point, read in batches. */
const streamUpTo = async (
  eventStore: AuditDeps['eventStore'],
  stream: string,
  include: (event: RecordedEvent) => boolean,
): Promise<{ folded: RecordedEvent[]; exists: boolean }> => {
  const folded: RecordedEvent[] = [];
  let exists = false;
  let fromRevision = 0n;
  for (;;) {
    const batch = await eventStore.readStream(stream, { fromRevision, maxCount: STATE_BATCH });
    if (batch.length > 0) exists = true;
    for (const event of batch) {
      // Positions and times grow along a stream: the first event past the point ends the fold.
      if (!include(event)) return { folded, exists };
      folded.push(event);
    }
    if (batch.length < STATE_BATCH) return { folded, exists };
    fromRevision = batch[batch.length - 1].revision + 1n;
  }
};

/**
 * The auditor's stream routes (admin key): one stream's events with their metadata, paged by
 * revision, and its state at a point in time folded by the aggregate's own decider.
 */
export const adminStreamRoutes =
  (deps: AuditDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/admin/streams/:stream',
      {
        schema: {
          tags: ['admin', 'audit'],
          summary: "One stream's events with data and metadata (who, when, request, correlation, causation), paged by revision",
          params: StreamParams,
          querystring: StreamQuery,
          response: { 200: StreamPage, ...errors(404) },
        },
        config: { auth: 'admin' },
      },
      async (request) => {
        const { stream } = request.params;
        const fromRevision = BigInt(request.query.from_revision ?? '0');
        const limit = request.query.limit;
        const events = await deps.eventStore.readStream(stream, { fromRevision, maxCount: limit + 1 });
        if (events.length === 0 && fromRevision === 0n) throw new DomainError('not_found', `stream ${stream} has no events`);
        const page = events.slice(0, limit);
        return {
          stream,
          events: page.map(toAuditEvent),
          next_from_revision: events.length > limit ? events[limit].revision.toString() : null,
        };
      },
    );

    app.get(
      '/admin/streams/:stream/state',
      {
        schema: {
          tags: ['admin', 'audit'],
          summary: "The aggregate's state at a position or instant, folded by its decider's evolve (default: now)",
          params: StreamParams,
          querystring: StateQuery,
          response: { 200: StreamState, ...errors(404) },
        },
        config: { auth: 'admin' },
      },
      async (request) => {
        const { stream } = request.params;
        const { at_position: atPosition, at_time: atTime } = request.query;
        if (atPosition !== undefined && atTime !== undefined) {
          throw new DomainError('validation_failed', 'give at_position or at_time, not both', { details: ['querystring: give at_position or at_time, not both'] });
        }
        const category = streamCategory(stream);
        const fold = foldOf(category);
        if (!fold) throw new DomainError('not_found', `no aggregate is known for streams of category '${category}'`);
        const limitPosition = atPosition === undefined ? undefined : BigInt(atPosition);
        const limitTime = atTime === undefined ? undefined : Date.parse(atTime);
        const { folded, exists } = await streamUpTo(
          deps.eventStore,
          stream,
          (event) =>
            (limitPosition === undefined || event.position <= limitPosition) &&
            (limitTime === undefined || Date.parse(event.metadata.timestamp) <= limitTime),
        );
        if (!exists) throw new DomainError('not_found', `stream ${stream} has no events`);
        const state = fold.stateAfter(folded);
        const last = folded.at(-1);
        return {
          stream,
          category,
          revision: last ? last.revision.toString() : null,
          position: last ? last.position.toString() : null,
          timestamp: last ? last.metadata.timestamp : null,
          events_folded: folded.length,
          state: redactSecrets(plainState(state)),
        };
      },
    );
  };

import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HistoryQuery, LogPage, LogQuery } from '../../../contracts/audit.ts';
import { AccountIdParams } from '../../../contracts/accounts.ts';
import { errors } from '../../../contracts/common.ts';
import { DomainError } from '../../../domain/errors.ts';
import { latestEvents, scanLog, type LogScanFilter } from '../../../infrastructure/event-store/scan.ts';
import { toAuditEvent } from '../../audit/audit-event.ts';
import type { AuditDeps } from './streams.ts';

const typeList = (types: string | undefined): string[] | undefined => {
  const list = types?.split(',').map((type) => type.trim()).filter((type) => type.length > 0);
  return list && list.length > 0 ? list : undefined;
};

/**
 * The global log for auditors (admin key), paged by position: `from_position` is inclusive and a
 * page answers `next_from_position` to continue from. Filters: event types, stream prefix, and
 * the account (events it caused, of its own stream, or naming it in their data). One request reads
 * at most 10,000 events, so a page of a rare filter may be short — follow next_from_position.
 */
export const adminEventRoutes =
  (deps: AuditDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();

    const page = async (query: { from_position?: string; limit: number; order?: 'asc' | 'desc' }, filter: LogScanFilter) => {
      const head = await deps.eventStore.headPosition();
      if (query.order === 'desc') {
        if (query.from_position !== undefined) {
          throw new DomainError('validation_failed', 'order=desc lists the newest events and takes no from_position', {
            details: ['querystring: order=desc takes no from_position'],
          });
        }
        const events = await latestEvents(deps.eventStore, { limit: query.limit, filter });
        return { events: events.map(toAuditEvent), next_from_position: null, head_position: head.toString() };
      }
      const fromPosition = query.from_position === undefined ? 0n : BigInt(query.from_position);
      // Past the head there is nothing to read (and a store may not take a position that large).
      if (fromPosition > head) return { events: [], next_from_position: null, head_position: head.toString() };
      const result = await scanLog(deps.eventStore, {
        fromPosition,
        limit: query.limit,
        filter,
      });
      return {
        events: result.events.map(toAuditEvent),
        next_from_position: result.nextFromPosition === null ? null : result.nextFromPosition.toString(),
        head_position: head.toString(),
      };
    };

    app.get(
      '/admin/events',
      {
        schema: {
          tags: ['admin', 'audit'],
          summary: 'The global event log, paged by position, filtered by types, account and stream prefix',
          querystring: LogQuery,
          response: { 200: LogPage, ...errors() },
        },
        config: { auth: 'admin' },
      },
      async (request) =>
        page(request.query, { types: typeList(request.query.types), accountId: request.query.account_id, streamPrefix: request.query.stream_prefix }),
    );

    app.get(
      '/admin/accounts/:id/history',
      {
        schema: {
          tags: ['admin', 'audit'],
          summary: 'Everything an account did, across streams, paged by position',
          params: AccountIdParams,
          querystring: HistoryQuery,
          response: { 200: LogPage, ...errors() },
        },
        config: { auth: 'admin' },
      },
      async (request) => page(request.query, { types: typeList(request.query.types), accountId: request.params.id }),
    );
  };

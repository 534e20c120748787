import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ExportQuery } from '../../../contracts/audit.ts';
import { errors } from '../../../contracts/common.ts';
import { allEvents } from '../../../infrastructure/event-store/scan.ts';
import type { RecordedEvent } from '../../../infrastructure/event-store/port.ts';
import { toAuditEvent } from '../../audit/audit-event.ts';
import type { AuditDeps } from './streams.ts';

const BATCH = 1_000;

async function* streamEvents(eventStore: AuditDeps['eventStore'], stream: string): AsyncGenerator<RecordedEvent> {
  let fromRevision = 0n;
  for (;;) {
    const batch = await eventStore.readStream(stream, { fromRevision, maxCount: BATCH });
    yield* batch;
    if (batch.length < BATCH) return;
    fromRevision = batch[batch.length - 1].revision + 1n;
  }
}

async function* ndjson(events: AsyncGenerator<RecordedEvent>): AsyncGenerator<string> {
  for await (const event of events) yield `${JSON.stringify(toAuditEvent(event))}\n`;
}

/**
 * The log (or one stream) as NDJSON for an auditor's own tools, streamed as it is read; secrets
 * redacted (a full backup with key hashes and ciphertexts is `npm run export -- --include-secrets`,
 * on the host only). Each line is one event in the shape of the audit routes.
 */
export const adminExportRoutes =
  (deps: AuditDeps): FastifyPluginAsync =>
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/admin/export',
      {
        schema: {
          tags: ['admin', 'audit'],
          summary: 'The whole log, or one stream, as NDJSON (one event per line, secrets redacted)',
          querystring: ExportQuery,
          // Only the 200 is NDJSON; errors stay the JSON envelope.
          response: {
            200: { description: 'NDJSON, one event per line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
            ...errors(),
          },
        },
        config: { auth: 'admin' },
      },
      async (request, reply) => {
        const events = request.query.stream ? streamEvents(deps.eventStore, request.query.stream) : allEvents(deps.eventStore, BATCH);
        const name = request.query.stream ? `stream-${request.query.stream}` : 'events';
        reply.header('content-type', 'application/x-ndjson; charset=utf-8');
        reply.header('content-disposition', `attachment; filename="${name}.ndjson"`);
        return reply.send(Readable.from(ndjson(events)));
      },
    );
  };

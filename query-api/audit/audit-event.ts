import { redactSecrets } from '../../domain/audit/redact.ts';
import type { RecordedEvent } from '../../infrastructure/event-store/port.ts';
import { toEventLine, type EventLine } from '../../infrastructure/event-store/ndjson.ts';

/** An event as an auditor sees it: the export line shape with every secret redacted. */
export const toAuditEvent = (event: RecordedEvent): EventLine => redactSecrets(toEventLine(event));

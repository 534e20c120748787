import pino, { type Logger } from 'pino';

/**
 * Paths pino must never write: API keys, admin keys, webhook signing secrets. Shared by every
 * process's logger so a secret cannot leak through a log line.
 */
export const logRedactPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'api_key',
  '*.api_key',
  'signing_secret',
  '*.signing_secret',
  'secret',
  '*.secret',
];

/** JSON logs for a process; request-scoped lines (from Fastify) add the request id. */
export const createLogger = (name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger =>
  pino({ name, level, redact: { paths: logRedactPaths, censor: '[redacted]' } });

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

/**
 * Readable lines (pino-pretty, in a worker thread) when stdout is a terminal, JSON otherwise —
 * logs piped to a file or a collector stay machine-readable. LOG_FORMAT=json|pretty overrides.
 */
export const prettyTransport = (): { transport?: { target: string; options: Record<string, unknown> } } => {
  const format = process.env.LOG_FORMAT?.trim();
  const pretty = format === 'pretty' || (format !== 'json' && process.stdout.isTTY === true);
  return pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {};
};

/** JSON logs for a process (readable when stdout is a terminal); request-scoped lines (from Fastify) add the request id. */
export const createLogger = (name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger =>
  pino({ name, level, redact: { paths: logRedactPaths, censor: '[redacted]' }, ...prettyTransport() });

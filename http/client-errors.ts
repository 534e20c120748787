import type { Socket } from 'node:net';
import { ErrorCodes, StatusNames, type ErrorCode } from '../domain/errors.ts';

/** Node's HTTP parser errors (before any route runs) and the envelope code each answers with. */
const byParserCode: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
};

/** The request path, when the parser got far enough to see the request line. */
const pathOf = (rawPacket: unknown): string => {
  const text = Buffer.isBuffer(rawPacket) ? rawPacket.subarray(0, 2048).toString('latin1') : '';
  const target = /^[A-Z]+ (\/[^\s?#]{0,200})/.exec(text)?.[1];
  return target ?? '/';
};

/**
 * Fastify's clientErrorHandler: a request the HTTP parser refuses — headers (URL included) over
 * Node's 16 KiB limit, headers or body too slow (REQUEST/HEADERS_TIMEOUT_MS), malformed HTTP —
 * still answers the JSON error envelope (431 headers_too_large, 408 request_timeout,
 * 400 malformed_request), then the connection is closed.
 */
export const clientErrorHandler = (error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const code: ErrorCode = (error.code && byParserCode[error.code]) || 'malformed_request';
  const status = ErrorCodes[code];
  const message =
    code === 'headers_too_large'
      ? 'request headers (URL included) exceed 16 KiB'
      : code === 'request_timeout'
        ? 'the request did not arrive in time'
        : 'malformed HTTP request';
  const body = JSON.stringify({
    statusCode: status,
    timestamp: new Date().toISOString(),
    path: pathOf(error.rawPacket),
    message,
    error: StatusNames[status],
    code,
  });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${StatusNames[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
};

import { createServer } from 'node:http';

/**
 * A webhook receiver for item 4: counts POSTs (the signed ones, and the distinct delivery ids, so a
 * redelivery shows), answers 204 at once, keeps the first body and headers as a sample. IPC:
 * answers `{type: 'listening', port}`; on `{type: 'stats'}` answers
 * `{type: 'stats', count, signed, distinct, first_at, last_at, sample}`; on
 * `{type: 'reset'}` starts counting again and answers `{type: 'reset'}`.
 */
let count = 0;
let signed = 0;
const deliveries = new Set<string>();
let firstAt: number | null = null;
let lastAt: number | null = null;
let sample: { body: string; headers: Record<string, string | string[] | undefined> } | null = null;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const now = performance.now();
    count += 1;
    if (request.headers['x-webhook-signature']) signed += 1;
    const delivery = request.headers['x-webhook-delivery'];
    if (typeof delivery === 'string') deliveries.add(delivery);
    firstAt ??= now;
    lastAt = now;
    if (!sample) sample = { body: Buffer.concat(chunks).toString('utf8'), headers: request.headers };
    response.writeHead(204).end();
  });
});
server.keepAliveTimeout = 30_000;

process.on('message', (message: { type: string }) => {
  if (message.type === 'stats') {
    process.send?.({ type: 'stats', count, signed, distinct: deliveries.size, first_at: firstAt, last_at: lastAt, sample });
  } else if (message.type === 'reset') {
    count = 0;
    signed = 0;
    deliveries.clear();
    firstAt = null;
    lastAt = null;
    process.send?.({ type: 'reset' });
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

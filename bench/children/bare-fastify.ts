import Fastify from 'fastify';

/**
 * Baseline of item 1: a bare Fastify server answering, from memory, the exact JSON (and headers)
 * the service answered for the same URL. Receives `{type: 'serve', path, body, headers}` over IPC,
 * answers `{type: 'listening', port}`.
 */
type Serve = { type: 'serve'; path: string; body: string; headers: Record<string, string> };

const serve = await new Promise<Serve>((resolve) =>
  process.on('message', (message: Serve) => {
    if (message.type === 'serve') resolve(message);
  }),
);
const app = Fastify({ logger: false });
app.get(serve.path, async (_request, reply) => reply.headers(serve.headers).send(serve.body));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

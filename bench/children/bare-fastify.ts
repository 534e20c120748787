import Fastify from 'fastify';

/**
 * A bare Fastify server answering, from memory, the exact JSON (and headers) the service answered
 * for the same request: the HTTP layer alone, as a baseline. Item 1 serves GET /v1/breeds with it;
 * item 2 serves POST /v1/votes (the JSON body is parsed, as any Fastify route does, then dropped).
 * Receives `{type: 'serve', method?, path, status?, body, headers}` over IPC, answers
 * `{type: 'listening', port}`.
 */
type Serve = { type: 'serve'; method?: 'GET' | 'POST'; path: string; status?: number; body: string; headers: Record<string, string> };

const serve = await new Promise<Serve>((resolve) =>
  process.on('message', (message: Serve) => {
    if (message.type === 'serve') resolve(message);
  }),
);
const app = Fastify({ logger: false });
app.route({
  method: serve.method ?? 'GET',
  url: serve.path,
  handler: async (_request, reply) => reply.code(serve.status ?? 200).headers(serve.headers).send(serve.body),
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

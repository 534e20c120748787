import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/**
 * Response compression (@fastify/compress): br or gzip as the client's Accept-Encoding prefers
 * (br on a tie), for JSON and text answers of 1 KiB and more; brotli at quality 4, the plugin's
 * default, since quality 11 costs far more CPU than it saves bytes. Request bodies are not
 * decompressed: a compressed upload would slip past the body limits, which count bytes received.
 * A route that sends bytes already encoded (the breed pages) sets Content-Encoding itself and the
 * plugin leaves them alone.
 */
export const registerCompression = async (app: FastifyInstance): Promise<void> => {
  await app.register(compress, { encodings: ['br', 'gzip'], threshold: 1024, globalDecompression: false });
};

import { createGateway } from './gateway.ts';
import { onShutdown } from '../infrastructure/shutdown.ts';
import { loadConfig } from '../infrastructure/config.ts';

/**
 * The gateway on its own: GATEWAY_COMMAND_API and GATEWAY_QUERY_API are comma-separated base URLs
 * of the replicas (e.g. http://command-api-1:8080,http://command-api-2:8080).
 */
const list = (name: string): string[] => {
  const value = process.env[name]?.split(',').map((url) => url.trim()).filter(Boolean) ?? [];
  if (value.length === 0) {
    console.error(`${name} must list at least one base URL`);
    process.exit(2);
  }
  return value;
};
const { trustProxy } = loadConfig();
const app = await createGateway({ commandApi: list('GATEWAY_COMMAND_API'), queryApi: list('GATEWAY_QUERY_API'), logLevel: process.env.LOG_LEVEL, trustProxy });
await app.listen({ port: Number(process.env.PORT ?? 8080), host: process.env.HOST ?? '127.0.0.1' });
onShutdown(() => app.close());

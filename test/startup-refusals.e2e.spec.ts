import { describe, expect, it } from 'vitest';
import { startProcess } from './processes.ts';

/** The entry points refuse to start on unsafe secrets, before touching any server, and say why. */
const exitOf = async (entry: string, env: Record<string, string>) => {
  const proc = startProcess(entry, entry, { ...env, SECRETS_KEY: env.SECRETS_KEY ?? '', ADMIN_API_KEY: env.ADMIN_API_KEY ?? '' });
  const code = await new Promise<number | null>((resolve) => proc.child.once('exit', (exitCode) => resolve(exitCode)));
  return { code, output: proc.output() };
};

describe('refusing to start', () => {
  it('command-api on shared adapters without SECRETS_KEY', async () => {
    const { code, output } = await exitOf('command-api/main.ts', { MONGO_URL: 'mongodb://127.0.0.1:1/x', ADMIN_API_KEY: 'f3a9c2e87b1d4065aa93' });
    expect(code).not.toBe(0);
    expect(output).toContain('SECRETS_KEY is required');
  }, 30_000);

  it('the webhook dispatcher on shared adapters without SECRETS_KEY', async () => {
    const { code, output } = await exitOf('webhook-dispatcher/main.ts', { KAFKA_BROKERS: '127.0.0.1:1' });
    expect(code).not.toBe(0);
    expect(output).toContain('SECRETS_KEY is required');
  }, 30_000);

  it('the all-in-one with the old compose default admin key', async () => {
    const { code, output } = await exitOf('runtime/main.ts', { ADMIN_API_KEY: 'change-me-admin-key-please', DATA_DIR: '/nonexistent/never-created' });
    expect(code).not.toBe(0);
    expect(output).toContain('well-known');
  }, 30_000);
});

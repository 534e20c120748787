import { describe, expect, it } from 'vitest';
import { assertDeploymentSecrets, ConfigError, loadConfig } from './config.ts';
import { openAdapters } from './adapters.ts';

const SECRETS_KEY = Buffer.alloc(32, 1).toString('base64');
const GOOD_ADMIN = 'f3a9c2e87b1d4065aa93';

describe('admin key', () => {
  it.each([
    ['short', 'too-short-key'],
    ['the old compose default', 'change-me-admin-key-please'],
    ['a placeholder inside a longer key', 'prod-changeme-0123456789'],
    ['a regular string', 'aaaaaaaaaaaaaaaaaaaaaaaa'],
    ['a regular string of two characters', 'abababababababababab'],
  ])('refuses %s', (_name, key) => {
    expect(() => loadConfig({ ADMIN_API_KEY: key })).toThrow(ConfigError);
  });

  it('accepts a random key, and no key on the embedded runtime', () => {
    expect(loadConfig({ ADMIN_API_KEY: GOOD_ADMIN }).adminApiKey).toBe(GOOD_ADMIN);
    expect(loadConfig({}).adminApiKey).toBeUndefined();
    expect(() => assertDeploymentSecrets(loadConfig({}), { serveAdmin: true })).not.toThrow();
  });
});

describe('a process on shared adapters', () => {
  it.each([['EVENTSTORE_URL', 'esdb://127.0.0.1:1?tls=false'], ['MONGO_URL', 'mongodb://127.0.0.1:1/x'], ['KAFKA_BROKERS', '127.0.0.1:1']])(
    'with %s refuses to start without SECRETS_KEY, saying why',
    (name, value) => {
      const config = loadConfig({ [name]: value, ADMIN_API_KEY: GOOD_ADMIN });
      expect(() => assertDeploymentSecrets(config)).toThrow(/SECRETS_KEY is required/);
      expect(() => assertDeploymentSecrets(loadConfig({ [name]: value, ADMIN_API_KEY: GOOD_ADMIN, SECRETS_KEY }))).not.toThrow();
    },
  );

  it('serving the admin surface, refuses to start without ADMIN_API_KEY', () => {
    const config = loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:1/x', SECRETS_KEY });
    expect(() => assertDeploymentSecrets(config, { serveAdmin: true })).toThrow(/ADMIN_API_KEY is required/);
    expect(() => assertDeploymentSecrets(config)).not.toThrow();
  });

  it('is refused by openAdapters before any connection is attempted', async () => {
    const started = Date.now();
    await expect(openAdapters(loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:1/x', DATA_DIR: '/nonexistent/never-created' }))).rejects.toThrow(/SECRETS_KEY/);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

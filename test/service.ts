import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadConfig, type Config } from '../infrastructure/config.ts';
import { mongoClient } from '../infrastructure/mongo-client.ts';
import { startAllInOne, type AllInOneOptions, type RunningService } from '../runtime/all-in-one.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789';
/** The SECRETS_KEY of test deployments on shared adapters (required there: config.ts assertDeploymentSecrets). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

export type TestService = RunningService & {
  dataDir: string;
  /** The configuration it runs with (adapters' URLs included). */
  config: Config;
  request: (method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string>; raw?: string }) => Promise<{
    status: number;
    headers: Headers;
    body: any;
  }>;
  createAccount: (body?: Record<string, unknown>) => Promise<{ account_id: string; api_key: string; key_id: string }>;
  restart: () => Promise<TestService>;
  dispose: () => Promise<void>;
};

/**
 * With E2E_ADAPTERS=production the end-to-end suites run on the production adapters named in the
 * environment (MONGO_URL, KAFKA_BROKERS, EVENTSTORE_URL), each test service isolated in its own
 * database and Kafka namespace; otherwise on the embedded defaults.
 */
export const productionAdapterEnv = (dataDir: string): NodeJS.ProcessEnv => {
  if (process.env.E2E_ADAPTERS !== 'production') return {};
  const isolation = basename(dataDir).replace(/[^A-Za-z0-9]/g, '_');
  const mongo = process.env.MONGO_URL ? new URL(process.env.MONGO_URL) : undefined;
  if (mongo) mongo.pathname = `/e2e_${isolation}`;
  return {
    MONGO_URL: mongo?.toString(),
    KAFKA_BROKERS: process.env.KAFKA_BROKERS,
    KAFKA_NAMESPACE: process.env.KAFKA_BROKERS ? `e2e_${isolation}` : undefined,
    EVENTSTORE_URL: process.env.EVENTSTORE_URL,
    REFERENCE_DATA_IMPORT: process.env.REFERENCE_DATA_IMPORT,
    SECRETS_KEY: process.env.SECRETS_KEY || TEST_SECRETS_KEY,
  };
};

/** productionAdapterEnv without its unset entries: the environment of a service child process. */
export const productionProcessEnv = (dataDir: string): Record<string, string> =>
  Object.fromEntries(Object.entries(productionAdapterEnv(dataDir)).filter(([, value]) => value !== undefined)) as Record<string, string>;

/**
 * The all-in-one service on a real listening port (127.0.0.1, random port) with its own DATA_DIR,
 * and a small fetch-based client. HTTP behaviour is tested through real sockets, not inject().
 */
export const startTestService = async (
  overrides: Partial<Config> = {},
  dataDir = mkdtempSync(join(tmpdir(), 'svc-')),
  options: Pick<AllInOneOptions, 'vision'> = {},
): Promise<TestService> => {
  const config: Config = {
    ...loadConfig(productionAdapterEnv(dataDir)),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    adminApiKey: ADMIN_KEY,
    logLevel: 'silent',
    demoAccount: false,
    // The suites send refused keys by the hundred from one address; test/auth.e2e.spec.ts tests the budget.
    authFailuresPerMinute: 1_000_000,
    ...overrides,
  };
  const running = await startAllInOne(config, { logger: false, ...options });
  const service: TestService = {
    ...running,
    dataDir,
    config,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== null && options.key !== undefined) headers['x-api-key'] = options.key;
      let body: string | undefined = options.raw;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${running.url}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed };
    },
    async createAccount(body = {}) {
      const response = await service.request('POST', '/v1/admin/accounts', { key: ADMIN_KEY, body: { name: 'Test', ...body } });
      if (response.status !== 201) throw new Error(`account creation failed: ${JSON.stringify(response.body)}`);
      return response.body;
    },
    async restart() {
      await running.stop();
      return startTestService(overrides, dataDir, options);
    },
    async dispose() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
};

/**
 * The keys of every blob the service has stored, whichever blob store it runs on: the files under
 * DATA_DIR/blobs (each with a `.type` file beside it), or the GridFS bucket `blobs` of its MongoDB
 * database. For suites that check that a refused upload stored nothing.
 */
export const storedBlobKeys = async (service: TestService): Promise<string[]> => {
  if (service.config.mongoUrl) {
    const client = mongoClient(service.config.mongoUrl);
    try {
      const db = client.db(new URL(service.config.mongoUrl).pathname.slice(1) || 'animal_data');
      return (await db.collection<{ filename: string }>('blobs.files').distinct('filename')).sort();
    } finally {
      await client.close();
    }
  }
  const dir = join(service.dataDir, 'blobs');
  return existsSync(dir) ? readdirSync(dir).filter((name) => !name.endsWith('.type')).sort() : [];
};

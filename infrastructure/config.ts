import { resolve } from 'node:path';

/**
 * Configuration from the environment, read in one place. Without EVENTSTORE_URL, MONGO_URL and
 * KAFKA_BROKERS the embedded adapters run under DATA_DIR.
 */
export type Config = {
  port: number;
  host: string;
  dataDir: string;
  adminApiKey: string | undefined;
  logLevel: string;
  readYourWritesTimeoutMs: number;
  eventStoreUrl: string | undefined;
  mongoUrl: string | undefined;
  /**
   * READ_STORE_RESIDENT_DOCS: documents of one collection the embedded read store keeps in memory
   * (unset: its default, 10,000); the older ones of a larger collection are read from its file when
   * a query needs them. Bounds a process's memory however large a read model grows.
   */
  readStoreResidentDocs: number | undefined;
  kafkaBrokers: string[] | undefined;
  /** Prefix of this deployment's Kafka topics and consumer groups. */
  kafkaNamespace: string | undefined;
  /** SMTP for owner notices; without it mail is written as .eml files under DATA_DIR/mail. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Create a demo account (and print its key) on the first start with no accounts. */
  demoAccount: boolean;
  /** REFERENCE_DATA_IMPORT=false: do not import reference-data/ on start (it is skipped anyway when unchanged). */
  referenceDataImport: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhook URLs may point at loopback/private addresses (development, tests). */
  webhookAllowPrivateTargets: boolean;
  /**
   * RUN_WEBHOOK_DISPATCHER=false: the all-in-one leaves webhook deliveries to a separate
   * `npm run start:webhook-dispatcher` (events wait on the bus meanwhile; nothing is lost).
   */
  runWebhookDispatcher: boolean;
  /**
   * RUN_PROCESSORS=false: the all-in-one leaves the processors (the image pipeline, pet photo
   * review, pet analyses) to a separate `npm run start:processors`, and never loads the image
   * models (events wait on the bus meanwhile; nothing is lost; upload-sync answers 503
   * analysis_unavailable while no processor runs).
   */
  runProcessors: boolean;
  /** SECRETS_KEY: base64 of 32 bytes, encrypts webhook signing secrets; unset = DATA_DIR/secrets.key (embedded). */
  secretsKey: string | undefined;
  /** RATE_LIMIT_PER_MINUTE: requests per minute per API key (accounts without a plan, or a plan not in RATE_LIMIT_PLANS). */
  rateLimitPerMinute: number;
  /** RATE_LIMIT_PLANS: `free=600,pro=6000` — requests per minute per API key of an account on that plan. */
  rateLimitPlans: Record<string, number>;
  /** REQUEST_TIMEOUT_MS: the whole request (headers and body) must arrive within this; HEADERS_TIMEOUT_MS: its headers. */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  /** IMAGE_UPLOAD_QUOTA: monthly image uploads per account unless an admin set the account's own (default 1000). */
  imageUploadQuota: number;
  /** UPLOAD_SYNC_TIMEOUT_MS: how long POST /images/upload-sync waits for the analysis before 503 analysis_unavailable (default 30 s). */
  uploadSyncTimeoutMs: number;
  /** PUBLIC_BASE_URL: the origin image `url`s start with (e.g. https://api.example.com); unset = the request's own origin. */
  publicBaseUrl: string | undefined;
  /** AUTH_FAILURES_PER_MINUTE: refused keys per client address per minute before 429 (http/auth-failures.ts). */
  authFailuresPerMinute: number;
  /**
   * TRUST_PROXY: whose X-Forwarded-For names the client address (per-address limits, logs):
   * `true`, a number of proxy hops, or a comma list of addresses/CIDRs. Unset: the socket's peer.
   */
  trustProxy: boolean | number | string | undefined;
};

export class ConfigError extends Error {}

/**
 * Admin keys that are published somewhere (examples, old compose defaults) or too regular to be
 * secret: refused even when long enough.
 */
const WELL_KNOWN_ADMIN_KEYS = new Set(['change-me-admin-key-please', 'changeme', 'admin', 'adminadminadminadmin', 'password', 'secret']);
const WELL_KNOWN_FRAGMENTS = ['change-me', 'changeme', 'change_me', 'replace-me', 'replaceme', 'your-admin-key', 'example'];

/** Why an admin key may not be used, or null. */
export const adminKeyProblem = (key: string): string | null => {
  if (key.length < 16) return 'ADMIN_API_KEY must be at least 16 characters (e.g. openssl rand -hex 24)';
  const lower = key.toLowerCase();
  if (WELL_KNOWN_ADMIN_KEYS.has(lower) || WELL_KNOWN_FRAGMENTS.some((fragment) => lower.includes(fragment))) {
    return 'ADMIN_API_KEY is a well-known placeholder; set a random one (e.g. openssl rand -hex 24)';
  }
  if (new Set(key).size < 6) return 'ADMIN_API_KEY is too regular to be secret (fewer than 6 distinct characters); use openssl rand -hex 24';
  return null;
};

/** True if any port runs on a server rather than under DATA_DIR (the separate-process topology). */
export const usesSharedAdapters = (config: Pick<Config, 'eventStoreUrl' | 'mongoUrl' | 'kafkaBrokers'>): boolean =>
  Boolean(config.eventStoreUrl || config.mongoUrl || config.kafkaBrokers);

/**
 * What a process on shared adapters must be given, checked before anything is opened:
 * - SECRETS_KEY, always: each process would otherwise generate its own key, and secrets one
 *   replica stored could not be read by another (the dispatcher could sign nothing);
 * - ADMIN_API_KEY, for a process that serves the admin surface (`serveAdmin`).
 * The embedded runtime keeps its key in DATA_DIR/secrets.key and may run without an admin key
 * (`npm run admin` then does the admin work).
 */
export const assertDeploymentSecrets = (
  config: Pick<Config, 'eventStoreUrl' | 'mongoUrl' | 'kafkaBrokers' | 'secretsKey' | 'adminApiKey'>,
  options: { serveAdmin?: boolean } = {},
): void => {
  if (!usesSharedAdapters(config)) return;
  if (!config.secretsKey) {
    throw new ConfigError(
      'SECRETS_KEY is required with EVENTSTORE_URL, MONGO_URL or KAFKA_BROKERS: every process sharing the log must encrypt and decrypt webhook secrets with the same key (openssl rand -base64 32)',
    );
  }
  if (options.serveAdmin && !config.adminApiKey) {
    throw new ConfigError('ADMIN_API_KEY is required with EVENTSTORE_URL, MONGO_URL or KAFKA_BROKERS (e.g. openssl rand -hex 24)');
  }
};

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got '${raw}'`);
  }
  return value;
};

const secretsKey = (env: NodeJS.ProcessEnv): string | undefined => {
  const raw = env.SECRETS_KEY?.trim();
  if (!raw) return undefined;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) || Buffer.from(raw, 'base64').length !== 32) {
    throw new ConfigError('SECRETS_KEY must be the base64 encoding of exactly 32 bytes (openssl rand -base64 32)');
  }
  return raw;
};

const rateLimitPlans = (env: NodeJS.ProcessEnv): Record<string, number> => {
  const raw = env.RATE_LIMIT_PLANS?.trim();
  if (!raw) return {};
  return Object.fromEntries(
    raw.split(',').map((entry) => {
      const match = /^\s*([a-z0-9_-]{1,40})\s*=\s*(\d{1,10})\s*$/.exec(entry);
      if (!match || Number(match[2]) < 1) throw new ConfigError(`RATE_LIMIT_PLANS must look like 'free=600,pro=6000', got '${raw}'`);
      return [match[1], Number(match[2])];
    }),
  );
};

const publicBaseUrl = (env: NodeJS.ProcessEnv): string | undefined => {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL must be an absolute http(s) URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`PUBLIC_BASE_URL must be http or https, got '${raw}'`);
  return raw.replace(/\/+$/, '');
};

const trustProxy = (env: NodeJS.ProcessEnv): boolean | number | string | undefined => {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return undefined;
  if (raw === 'true') return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  if (!/^[0-9A-Fa-f:.\/, ]+$/.test(raw)) throw new ConfigError(`TRUST_PROXY must be true, a hop count or a comma list of addresses/CIDRs, got '${raw}'`);
  return raw;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const adminApiKey = env.ADMIN_API_KEY?.trim() || undefined;
  const adminProblem = adminApiKey === undefined ? null : adminKeyProblem(adminApiKey);
  if (adminProblem) throw new ConfigError(adminProblem);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR?.trim() || './var'),
    adminApiKey,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 2000, 0, 30_000),
    eventStoreUrl: env.EVENTSTORE_URL?.trim() || undefined,
    mongoUrl: env.MONGO_URL?.trim() || undefined,
    readStoreResidentDocs: env.READ_STORE_RESIDENT_DOCS ? integer(env, 'READ_STORE_RESIDENT_DOCS', 0, 100, 100_000_000) : undefined,
    kafkaBrokers: env.KAFKA_BROKERS?.trim() ? env.KAFKA_BROKERS.split(',').map((broker) => broker.trim()) : undefined,
    kafkaNamespace: env.KAFKA_NAMESPACE?.trim() || undefined,
    smtpUrl: env.SMTP_URL?.trim() || undefined,
    mailFrom: env.MAIL_FROM?.trim() || 'Animal Data API <no-reply@animal-data.local>',
    demoAccount: env.DEMO_ACCOUNT !== 'false',
    referenceDataImport: env.REFERENCE_DATA_IMPORT !== 'false',
    webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS?.trim() === 'true',
    runWebhookDispatcher: env.RUN_WEBHOOK_DISPATCHER?.trim() !== 'false',
    runProcessors: env.RUN_PROCESSORS?.trim() !== 'false',
    secretsKey: secretsKey(env),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1, 1_000_000_000),
    rateLimitPlans: rateLimitPlans(env),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 300_000, 1000, 3_600_000),
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 20_000, 500, 300_000),
    imageUploadQuota: integer(env, 'IMAGE_UPLOAD_QUOTA', 1000, 0, 10_000_000),
    uploadSyncTimeoutMs: integer(env, 'UPLOAD_SYNC_TIMEOUT_MS', 30_000, 100, 300_000),
    publicBaseUrl: publicBaseUrl(env),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000_000),
    trustProxy: trustProxy(env),
  };
};

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
  kafkaBrokers: string[] | undefined;
  /** Prefix of this deployment's Kafka topics and consumer groups. */
  kafkaNamespace: string | undefined;
  /** SMTP for owner notices; without it mail is written as .eml files under DATA_DIR/mail. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Create a demo account (and print its key) on the first start with no accounts. */
  demoAccount: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS=true: webhook URLs may point at loopback/private addresses (development, tests). */
  webhookAllowPrivateTargets: boolean;
  /** SECRETS_KEY: base64 of 32 bytes, encrypts webhook signing secrets; unset = DATA_DIR/secrets.key (embedded). */
  secretsKey: string | undefined;
};

export class ConfigError extends Error {}

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

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): Config => {
  const adminApiKey = env.ADMIN_API_KEY?.trim() || undefined;
  if (adminApiKey !== undefined && adminApiKey.length < 16) {
    throw new ConfigError('ADMIN_API_KEY must be at least 16 characters');
  }
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: resolve(env.DATA_DIR?.trim() || './var'),
    adminApiKey,
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    readYourWritesTimeoutMs: integer(env, 'READ_YOUR_WRITES_TIMEOUT_MS', 2000, 0, 30_000),
    eventStoreUrl: env.EVENTSTORE_URL?.trim() || undefined,
    mongoUrl: env.MONGO_URL?.trim() || undefined,
    kafkaBrokers: env.KAFKA_BROKERS?.trim() ? env.KAFKA_BROKERS.split(',').map((broker) => broker.trim()) : undefined,
    kafkaNamespace: env.KAFKA_NAMESPACE?.trim() || undefined,
    smtpUrl: env.SMTP_URL?.trim() || undefined,
    mailFrom: env.MAIL_FROM?.trim() || 'Animal Data API <no-reply@animal-data.local>',
    demoAccount: env.DEMO_ACCOUNT !== 'false',
    webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS?.trim() === 'true',
    secretsKey: secretsKey(env),
  };
};

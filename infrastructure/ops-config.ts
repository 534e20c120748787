import { ConfigError } from './config.ts';

/**
 * Operations settings (metrics, readiness, shutdown), read from the environment apart from the
 * service configuration:
 * - METRICS_TOKEN (≥ 16 characters): /metrics on the API port answers only with
 *   `Authorization: Bearer <token>`; unset, the API port has no /metrics at all (404).
 * - METRICS_PORT: a separate listener for /metrics, /health and /ready (every process, including
 *   projectors, processors and the dispatcher, which have no API port), bound to METRICS_HOST
 *   (default 127.0.0.1, so it is not reachable from elsewhere unless asked). The token, when set,
 *   is required there too.
 * - READY_MAX_LAG_MS (default 5000): /ready fails while the projections have not reached the head
 *   of the log as it was this long ago.
 * - SHUTDOWN_TIMEOUT_MS (default 10000): on SIGTERM a process stops accepting, finishes in-flight
 *   requests and handlers and stores its checkpoints; past this bound it exits with status 1.
 */
export type OpsConfig = {
  metricsToken: string | undefined;
  metricsPort: number | undefined;
  metricsHost: string;
  readyMaxLagMs: number;
  shutdownTimeoutMs: number;
};

const integer = (env: NodeJS.ProcessEnv, name: string, fallback: number | undefined, min: number, max: number): number | undefined => {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got '${raw}'`);
  return value;
};

export const loadOpsConfig = (env: NodeJS.ProcessEnv = process.env): OpsConfig => {
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  return {
    metricsToken,
    metricsPort: integer(env, 'METRICS_PORT', undefined, 0, 65535),
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    readyMaxLagMs: integer(env, 'READY_MAX_LAG_MS', 5_000, 0, 3_600_000) as number,
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000) as number,
  };
};

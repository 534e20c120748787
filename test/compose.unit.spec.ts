import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/**
 * compose.yaml's safe defaults (no Docker engine here: the file is checked as data). Only the
 * gateway is published, on loopback unless GATEWAY_BIND says otherwise; the servers sit on an
 * internal network; both secrets are required, with no default value.
 */
type Service = { ports?: string[]; networks?: string[]; environment?: Record<string, string>; command?: string[] };
const compose = parse(readFileSync(new URL('../compose.yaml', import.meta.url), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { internal?: boolean } | null>;
};

describe('compose.yaml', () => {
  it('publishes the gateway (and Prometheus, loopback only) and nothing else, bound to 127.0.0.1 by default', () => {
    const published = Object.entries(compose.services).filter(([, service]) => service.ports?.length);
    expect(published.map(([name]) => name).sort()).toEqual(['gateway', 'prometheus']);
    expect(compose.services.prometheus.ports?.every((port) => port.startsWith('127.0.0.1:'))).toBe(true);
    expect(compose.services.gateway.ports).toEqual(['${GATEWAY_BIND:-127.0.0.1}:${GATEWAY_PORT:-8080}:8080']);
  });

  it('keeps EventStoreDB, MongoDB and Kafka on an internal network only', () => {
    expect(compose.networks.data?.internal).toBe(true);
    for (const server of ['eventstore', 'mongo', 'kafka']) expect(compose.services[server].networks).toEqual(['data']);
    expect(compose.services.gateway.networks).not.toContain('data');
  });

  it('requires ADMIN_API_KEY and SECRETS_KEY (no default value) for every process of the service', () => {
    const processes = Object.entries(compose.services).filter(([name]) => !['eventstore', 'mongo', 'kafka', 'prometheus'].includes(name));
    expect(processes.length).toBeGreaterThanOrEqual(6);
    for (const [, service] of processes) {
      expect(service.environment?.ADMIN_API_KEY).toMatch(/^\$\{ADMIN_API_KEY:\?/);
      expect(service.environment?.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
    }
    expect(readFileSync(new URL('../compose.yaml', import.meta.url), 'utf8')).not.toContain('change-me-admin-key-please');
  });

  it("runs every process of the service as compiled JavaScript (npm run build's dist/) of an entry point that exists", () => {
    const processes = Object.entries(compose.services).filter(([, service]) => service.command);
    expect(processes.map(([name]) => name).sort()).toEqual(['command-api', 'gateway', 'processors', 'projectors', 'query-api', 'webhook-dispatcher']);
    for (const [, { command }] of processes) {
      expect(command?.[0]).toBe('node');
      const entry = /^dist\/(.+)\.js$/.exec(command?.[1] ?? '')?.[1];
      expect(entry && existsSync(new URL(`../${entry}.ts`, import.meta.url)), command?.join(' ')).toBe(true);
    }
  });
});

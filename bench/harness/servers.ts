import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpuSecondsOf } from './cpu.ts';

/** A server the production adapters talk to, running here (scripts/dev-servers), by its pids. */
export type DevServer = { name: string; pids: () => number[] };

const childrenOf = (parent: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    });

/**
 * The dev servers running on this machine, from their pid files (DEV_SERVERS_HOME, else
 * .dev-servers): mongo-java-server, FerretDB with PostgreSQL's postmaster and its backends, the
 * Kafka broker. On the production adapters their CPU is spent on the same cores as the service's.
 */
export const devServers = (): DevServer[] => {
  const home = process.env.DEV_SERVERS_HOME ?? join(import.meta.dirname, '..', '..', '.dev-servers');
  const pidIn = (file: string): number | null => {
    try {
      const pid = Number(readFileSync(join(home, file), 'utf8').trim()) || null;
      return pid !== null && cpuSecondsOf(pid) !== null ? pid : null;
    } catch {
      return null;
    }
  };
  const javaServer = pidIn('mongo-java-server/server.pid');
  const ferret = pidIn('ferretdb/ferretdb.pid');
  const postmaster = pidIn('postgresql/postgresql.pid');
  const kafka = pidIn('kafka/kafka.pid');
  return [
    ...(javaServer ? [{ name: 'mongo-java-server', pids: () => [javaServer] }] : []),
    ...(ferret ? [{ name: 'FerretDB', pids: () => [ferret] }] : []),
    ...(postmaster ? [{ name: 'PostgreSQL (all its processes)', pids: () => [postmaster, ...childrenOf(postmaster)] }] : []),
    ...(kafka ? [{ name: 'Kafka broker', pids: () => [kafka] }] : []),
  ];
};

/** CPU seconds of each server so far, keyed by name and pid (backends come and go). */
const serverCpu = (servers: readonly DevServer[]): Map<string, number> => {
  const cpu = new Map<string, number>();
  for (const server of servers) for (const pid of server.pids()) cpu.set(`${server.name}\t${pid}`, cpuSecondsOf(pid) ?? 0);
  return cpu;
};

export type ServersCpu = {
  /** CPU ms per unit of work of all the servers together, and of each. */
  totalMs: number;
  byServer: { name: string; ms: number }[];
};

/** The servers' CPU per unit of work over a span, as cpuMeter measures one process's. */
export const serversCpuMeter = (servers: readonly DevServer[]): { per: (count: number) => ServersCpu | null } => {
  const before = serverCpu(servers);
  return {
    per: (count) => {
      if (servers.length === 0 || count <= 0) return null;
      const after = serverCpu(servers);
      const byServer = servers.map(({ name }) => {
        let seconds = 0;
        for (const [key, value] of after) if (key.startsWith(`${name}\t`)) seconds += value - (before.get(key) ?? 0);
        return { name, ms: (seconds * 1000) / count };
      });
      return { totalMs: byServer.reduce((sum, { ms }) => sum + ms, 0), byServer };
    },
  };
};

/** "mongo-java-server 0.31 ms, Kafka broker 0.12 ms". */
export const describeServersCpu = (cpu: ServersCpu): string => cpu.byServer.map(({ name, ms }) => `${name} ${ms.toFixed(2)} ms`).join(', ');

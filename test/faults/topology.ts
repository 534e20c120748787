import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { serviceNodeOptions } from '../../infrastructure/heap-policy.ts';
import { createWriteStream, mkdirSync, readFileSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../processes.ts';
import { ADMIN_KEY, TEST_SECRETS_KEY } from '../service.ts';

const run = promisify(execFile);

/** Where the fault suite keeps its servers' data and every process's log (gitignored). */
export const FAULTS_HOME = join(process.cwd(), '.dev-servers', 'faults');

/**
 * The suite's own Kafka broker and Mongo-wire server, started by the project's scripts on ports
 * and directories of their own, so the servers other suites share are never touched.
 */
export type ServerName = 'kafka' | 'mongo-java-server';

const serverEnv = (name: ServerName): NodeJS.ProcessEnv =>
  name === 'kafka'
    ? {
        KAFKA_PORT: process.env.FAULTS_KAFKA_PORT ?? '29092',
        KAFKA_CONTROLLER_PORT: process.env.FAULTS_KAFKA_CONTROLLER_PORT ?? '29093',
        KAFKA_INSTANCE_DIR: join(FAULTS_HOME, 'kafka'),
        KAFKA_START_TIMEOUT: '180',
      }
    : {
        MONGO_JAVA_SERVER_PORT: process.env.FAULTS_MONGO_PORT ?? '27029',
        MONGO_JAVA_SERVER_INSTANCE_DIR: join(FAULTS_HOME, 'mongo'),
        MONGO_JAVA_SERVER_START_TIMEOUT: '180',
        MONGO_JAVA_SERVER_HEAP_OPTS: '-Xmx768m -Xms128m',
      };

const pidFile = (name: ServerName) => (name === 'kafka' ? join(FAULTS_HOME, 'kafka', 'kafka.pid') : join(FAULTS_HOME, 'mongo', 'server.pid'));

/** Runs `scripts/dev-servers/<name>.sh <command>` for the suite's instance; `start` answers its KEY=value line. */
export const serverScript = async (name: ServerName, command: 'start' | 'stop' | 'reset' | 'status'): Promise<string> => {
  const { stdout } = await run('bash', [`scripts/dev-servers/${name}.sh`, command], {
    env: { ...process.env, ...serverEnv(name) },
    timeout: 300_000,
    maxBuffer: 1 << 20,
  });
  return stdout.trim();
};

/** The pid of the suite's instance of a server (from the pid file its script wrote). */
export const serverPid = (name: ServerName): number => Number(readFileSync(pidFile(name), 'utf8').trim());

/** Sends a signal to the suite's own server, never to another instance. */
export const signalServer = (name: ServerName, signal: NodeJS.Signals): void => {
  process.kill(serverPid(name), signal);
};

/** Starts a server, once more after a short pause if its first start fails (as CI does). */
export const startServer = async (name: ServerName): Promise<string> => {
  try {
    return await serverScript(name, 'start');
  } catch {
    await delay(3000);
    return serverScript(name, 'start');
  }
};

export type ProcessSpec = { name: string; entry: string; port?: number; env?: Record<string, string> };

export type RunningProcess = {
  spec: ProcessSpec;
  child: ChildProcess;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  restarts: number;
};

/**
 * The production topology as compose.yaml lays it out, each process of the service separate:
 * two command APIs and two query APIs behind the gateway, projectors (with the relay to Kafka),
 * processors and the webhook dispatcher, on the suite's Kafka and Mongo-wire server, with the
 * embedded event store file in DATA_DIR shared by all of them (EventStoreDB cannot be had here).
 */
export class Topology {
  readonly processes = new Map<string, RunningProcess>();
  readonly logDir = join(FAULTS_HOME, 'logs');
  private logs = new Map<string, WriteStream>();
  gatewayUrl = '';

  constructor(readonly env: Record<string, string>) {
    mkdirSync(this.logDir, { recursive: true });
  }

  static async specs(): Promise<ProcessSpec[]> {
    const [c1, c2, q1, q2, g] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    return [
      { name: 'projectors', entry: 'projectors/main.ts' },
      { name: 'processors', entry: 'processors/main.ts', env: { MALLOC_ARENA_MAX: '2' } },
      { name: 'webhook-dispatcher', entry: 'webhook-dispatcher/main.ts' },
      { name: 'command-api-1', entry: 'command-api/main.ts', port: c1, env: { TRUST_PROXY: '1' } },
      { name: 'command-api-2', entry: 'command-api/main.ts', port: c2, env: { TRUST_PROXY: '1' } },
      { name: 'query-api-1', entry: 'query-api/main.ts', port: q1, env: { TRUST_PROXY: '1' } },
      { name: 'query-api-2', entry: 'query-api/main.ts', port: q2, env: { TRUST_PROXY: '1' } },
      {
        name: 'gateway',
        entry: 'runtime/gateway-main.ts',
        port: g,
        env: { GATEWAY_COMMAND_API: `http://127.0.0.1:${c1},http://127.0.0.1:${c2}`, GATEWAY_QUERY_API: `http://127.0.0.1:${q1},http://127.0.0.1:${q2}` },
      },
    ];
  }

  private log(name: string): WriteStream {
    let stream = this.logs.get(name);
    if (!stream) {
      stream = createWriteStream(join(this.logDir, `${name}.log`), { flags: 'a' });
      this.logs.set(name, stream);
    }
    return stream;
  }

  /** Starts (or restarts) one process; its stdout and stderr go to `<logDir>/<name>.log`. */
  start(spec: ProcessSpec): RunningProcess {
    const previous = this.processes.get(spec.name);
    const child = spawn(process.execPath, ['--import', 'tsx', spec.entry], {
      // Under the service's heap policy, as `npm run start:*` and the Docker image start it.
      env: { ...process.env, NODE_OPTIONS: serviceNodeOptions(), ...this.env, ...(spec.env ?? {}), ...(spec.port ? { PORT: String(spec.port), HOST: '127.0.0.1' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = this.log(spec.name);
    log.write(`\n===== ${new Date().toISOString()} start ${spec.name} (pid ${child.pid})\n`);
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const running = { spec, child, exited, restarts: previous ? previous.restarts + 1 : 0 };
    this.processes.set(spec.name, running);
    return running;
  }

  alive(name: string): boolean {
    const proc = this.processes.get(name);
    return !!proc && proc.child.exitCode === null && proc.child.signalCode === null;
  }

  /** SIGKILL, then start it again at once, as an orchestrator restarts a crashed container. */
  async killAndRestart(name: string): Promise<void> {
    const proc = this.processes.get(name);
    if (!proc) throw new Error(`no process ${name}`);
    if (this.alive(name)) proc.child.kill('SIGKILL');
    await proc.exited;
    this.log(name).write(`\n===== ${new Date().toISOString()} SIGKILL ${name}\n`);
    this.start(proc.spec);
  }

  /** Waits until every HTTP process answers /health (bounded). */
  async waitHealthy(timeoutMs = 180_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const proc of this.processes.values()) {
      if (!proc.spec.port) continue;
      for (;;) {
        if (proc.child.exitCode !== null) throw new Error(`${proc.spec.name} exited during start-up (log: ${join(this.logDir, `${proc.spec.name}.log`)})`);
        try {
          if ((await fetch(`http://127.0.0.1:${proc.spec.port}/health`, { signal: AbortSignal.timeout(5000) })).ok) break;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`${proc.spec.name} not healthy after ${timeoutMs} ms`);
        await delay(250);
      }
    }
  }

  async startAll(): Promise<void> {
    const specs = await Topology.specs();
    for (const spec of specs) this.start(spec);
    this.gatewayUrl = `http://127.0.0.1:${specs.find((spec) => spec.name === 'gateway')!.port}`;
    await this.waitHealthy();
  }

  /** Names of the service's processes (the candidates of the random kills). */
  names(): string[] {
    return [...this.processes.keys()];
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.processes.values()].map(async (proc) => {
        if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
        await Promise.race([proc.exited, delay(15_000).then(() => proc.child.kill('SIGKILL'))]);
      }),
    );
    for (const stream of this.logs.values()) stream.end();
  }

  /** Lines of a process's log matching a pattern (e.g. the retries it logged during a fault). */
  logLines(name: string, pattern: RegExp): string[] {
    try {
      return readFileSync(join(this.logDir, `${name}.log`), 'utf8').split('\n').filter((line) => pattern.test(line));
    } catch {
      return [];
    }
  }
}

/** The environment every process of the topology shares. */
export const topologyEnv = (dataDir: string, mongoUrl: string, brokers: string, isolation: string): Record<string, string> => {
  const mongo = new URL(mongoUrl);
  mongo.pathname = `/faults_${isolation}`;
  return {
    DATA_DIR: dataDir,
    MONGO_URL: mongo.toString(),
    KAFKA_BROKERS: brokers,
    KAFKA_NAMESPACE: `faults_${isolation}`,
    ADMIN_API_KEY: ADMIN_KEY,
    SECRETS_KEY: TEST_SECRETS_KEY,
    DEMO_ACCOUNT: 'false',
    REFERENCE_DATA_IMPORT: 'false',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    AUTH_FAILURES_PER_MINUTE: '1000000000',
    LOG_LEVEL: 'warn',
  };
};

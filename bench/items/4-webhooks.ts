import { setTimeout as delay } from 'node:timers/promises';
import { availableParallelism } from 'node:os';
import { Pool } from 'undici';
import { startChild, type Child } from '../harness/children.ts';
import { unlessAnswers } from '../harness/context.ts';
import { cpuMeter, cpuSecondsOf } from '../harness/cpu.ts';
import { everyCoreBound, figure } from '../harness/figure.ts';
import { load, loadProblems } from '../harness/load.ts';
import { requestJson } from '../harness/http.ts';
import { RSS_BOUND_MIB, sampleRss } from '../harness/rss.ts';
import { startService } from '../harness/service.ts';
import { describeServersCpu, devServers, serversCpuMeter, type DevServer, type ServersCpu } from '../harness/servers.ts';
import { rawAppendsPerSecond, serialCeiling } from '../harness/raw-appends.ts';
import type { BenchItem } from '../harness/types.ts';

/** The dispatcher's default number of concurrent attempts: the raw baseline uses as many connections. */
const CONCURRENCY = 64;
/** The target: signed deliveries at this share of the ceiling line. */
const TARGET_RATIO = 0.5;
/** The machine's cores, which the service, the receiver and (on the production adapters) the servers share. */
const CORES = availableParallelism();
/** Connections posting the votes that make the backlog. */
const CONNECTIONS = 16;

/**
 * The backlog: BENCH_WEBHOOK_BACKLOG votes, 150,000 by default — a fixed size, so the dispatching
 * service's memory bound is tested at the same backlog on every machine (a backlog of the votes
 * taken in a fixed time grew with the machine's speed). On the production adapters it defaults to
 * 10,000: the delivery log gets a write for every delivery, and the Mongo-wire test server's speed,
 * not the dispatcher's, would otherwise decide how long the item takes. 0: the votes taken in
 * `durationS`.
 */
export const DEFAULT_BACKLOG = 150_000;
const backlogCap = (mode: string): number | undefined => {
  const cap = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? (mode === 'production' ? 10_000 : DEFAULT_BACKLOG));
  return Number.isFinite(cap) && cap > 0 ? cap : undefined;
};

type Stats = { count: number; signed: number; distinct: number; first_at: number | null; last_at: number | null; sample: { body: string; headers: Record<string, string> } | null };

const stats = (receiver: Child): Promise<Stats> => {
  receiver.send({ type: 'stats' });
  return receiver.message<Stats>('stats');
};

const reset = async (receiver: Child): Promise<void> => {
  receiver.send({ type: 'reset' });
  await receiver.message('reset');
};

/**
 * Waits until `expected` deliveries arrived, or none came for `quietMs` (bounded by `maxMs`).
 * `onPoll` sees the receiver's counts at every poll (every 250 ms), the last one included.
 */
const drain = async (receiver: Child, expected: number, quietMs: number, maxMs: number, onPoll: (stats: Stats) => void = () => {}): Promise<Stats> => {
  const deadline = Date.now() + maxMs;
  let last = await stats(receiver);
  onPoll(last);
  let progressAt = Date.now();
  while (last.distinct < expected && Date.now() < deadline && Date.now() - progressAt < quietMs) {
    await delay(250);
    const now = await stats(receiver);
    onPoll(now);
    if (now.count > last.count) progressAt = Date.now();
    last = now;
  }
  return last;
};

type DrainCpu = { serviceMs: number | null; receiverMs: number | null; servers: ServersCpu | null };

/**
 * The CPU per delivery of every process at work while deliveries arrive: from the first poll that
 * saw one to the last poll, divided by the deliveries in between — the service's start-up and the
 * idle time after the drain left out. `measured` is read once the drain returned (right after its
 * last poll).
 */
const drainCpu = (pids: { service: number; receiver: number }, servers: DevServer[]) => {
  let start: { count: number; service: ReturnType<typeof cpuMeter>; receiver: ReturnType<typeof cpuMeter>; servers: ReturnType<typeof serversCpuMeter> } | null = null;
  let lastCount = 0;
  return {
    onPoll: (now: Stats) => {
      lastCount = now.count;
      if (!start && now.count > 0) start = { count: now.count, service: cpuMeter(pids.service), receiver: cpuMeter(pids.receiver), servers: serversCpuMeter(servers) };
    },
    measured: (): DrainCpu | null => {
      const count = start ? lastCount - start.count : 0;
      if (!start || count <= 0) return null;
      return { serviceMs: start.service.per(count), receiverMs: start.receiver.per(count), servers: start.servers.per(count) };
    },
  };
};

/** The drain's CPU per delivery (drainCpu) and the bound it sets with every core busy. */
const drainFigures = (item: string, { serviceMs, receiverMs, servers }: DrainCpu, ceiling: number | null) => [
  figure({ item, metric: 'service CPU per delivery during the drain (first delivery to last)', value: serviceMs, unit: 'ms' }),
  figure({ item, metric: "the receiver's CPU per delivery (a bare node:http server answering 204)", value: receiverMs, unit: 'ms' }),
  ...(servers ? [figure({ item, metric: "the servers' CPU per delivery, on the same cores", value: servers.totalMs, unit: 'ms', note: describeServersCpu(servers) })] : []),
  ...(serviceMs === null || receiverMs === null || ceiling === null
    ? []
    : [
        figure({
          item,
          metric: servers
            ? "every core busy: the drain's CPU per delivery (service, servers, receiver), spread over all the cores"
            : "every core busy: the drain's CPU per delivery (service, receiver), spread over all the cores",
          unit: 'req/s',
          baseline: { label: 'ceiling: raw POST + raw append', value: ceiling },
          ...everyCoreBound(
            CORES,
            serviceMs,
            [...(servers ? [{ label: 'servers', ms: servers.totalMs }] : []), { label: 'receiver', ms: receiverMs }],
            { ratio: TARGET_RATIO, ceiling },
            'delivery',
          ),
        }),
      ]),
];

/** Plain POSTs of the same body to the same receiver, `CONCURRENCY` loops, for `seconds`. */
const rawPosts = async (url: string, body: string, seconds: number): Promise<number> => {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: CONCURRENCY });
  let ok = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const response = await pool.request({ path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await response.body.dump();
        if (response.statusCode < 300) ok += 1;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return ok / elapsed;
};

/**
 * 4. Signed webhook deliveries/s against the ceiling line: one raw undici POST to the same local
 * receiver (its own process) plus one raw append per delivery, POSTs and appends with the
 * dispatcher's concurrency. The dispatcher's capacity is measured on a backlog, so the rate at
 * which votes arrive does not cap it: a service of its own (this run's adapters, a
 * database/namespace of its own) first takes the backlog's POST /v1/votes from an
 * account whose endpoint subscribes to vote.created, with its dispatcher off
 * (RUN_WEBHOOK_DISPATCHER=false); it then starts again on the same data with the dispatcher on,
 * and the receiver counts from the first delivery to the last.
 *
 * One bound says what the service's own work allows, as item 2's last one does: the CPU per
 * delivery of everything that runs during the drain — the dispatching service, the receiver, and
 * on the production adapters the servers running here — spread over every core. Measured on one
 * machine: the dispatcher in a process of its own beside the all-in-one drains no faster (the two
 * cores are already busy), so the drain is bound by its CPU per delivery, not by its event loop.
 */
export const item: BenchItem = {
  name: '4 webhooks',
  target: 'signed deliveries/s ≥ 0.5× the ceiling line (one raw POST + one raw append per delivery)',
  available: (ctx) => unlessAnswers(ctx, '/v1/webhooks'),
  async run(ctx) {
    const receiver = startChild('bench/children/receiver.ts');
    const runId = `${ctx.runId}_hooks`;
    const quiet = { REFERENCE_DATA_IMPORT: 'false' };
    let service = await startService(ctx.mode, runId, { env: { ...quiet, RUN_WEBHOOK_DISPATCHER: 'false' } });
    try {
      const { port } = await receiver.message<{ port: number }>('listening');
      const url = `http://127.0.0.1:${port}/hook`;
      const request = (method: string, path: string, options: { key?: string; body?: unknown } = {}) =>
        requestJson(`${service.url}${path}`, { method, key: options.key, body: options.body });
      const account = await request('POST', '/v1/admin/accounts', { key: service.adminKey, body: { name: 'bench webhooks' } });
      if (account.status !== 201) throw new Error(`creating the account answered ${account.status}`);
      const apiKey = (account.body as { api_key: string }).api_key;
      const created = await request('POST', '/v1/webhooks', { key: apiKey, body: { url, description: 'bench receiver', enabled_events: ['vote.created'] } });
      if (created.status !== 201) throw new Error(`registering the endpoint answered ${created.status} ${JSON.stringify(created.body)}`);

      const votes = await load({
        url: `${service.url}/v1/votes`,
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ image_id: 'bench-hook', value: 1, sub_id: 'hook' }),
        connections: CONNECTIONS,
        durationS: ctx.durationS,
        amount: backlogCap(ctx.mode),
      });
      if (votes.ok === 0) throw new Error(`no vote was accepted (${loadProblems(votes)})`);
      // The service's own count: requests still in flight when the load stopped were taken too.
      const listed = await request('GET', '/v1/votes?limit=1', { key: apiKey });
      // (A read model still catching up may count fewer: never expect less than the answered votes.)
      const expected = Math.max(votes.ok, Number(listed.headers['pagination-count'] ?? 0) || 0);
      await service.stop({ keepData: true });

      // The same data with the dispatcher on: the backlog drains as fast as the dispatcher goes.
      service = await startService(ctx.mode, runId, { env: quiet, dataDir: service.dataDir });
      const rss = sampleRss(service.pid);
      const during = drainCpu({ service: service.pid, receiver: receiver.pid }, ctx.mode === 'production' ? devServers() : []);
      const delivered = await drain(receiver, expected, 15_000, Math.max(120_000, expected * 5), during.onPoll);
      const peakRss = rss.stop();
      const drainMs = during.measured();
      // The dispatcher starts draining before the service answers /health, so the CPU is counted
      // over the process's whole life: start-up included (about a second), spread over the deliveries.
      const cpuSeconds = cpuSecondsOf(service.pid);
      const cpuMs = cpuSeconds !== null && delivered.count > 0 ? (cpuSeconds * 1000) / delivered.count : null;
      const spanS = delivered.first_at !== null && delivered.last_at !== null ? (delivered.last_at - delivered.first_at) / 1000 : 0;
      const deliveriesPerSecond = spanS > 0 ? delivered.count / spanS : null;
      if (!delivered.sample) throw new Error('no delivery reached the receiver');

      await reset(receiver);
      const rawPerSecond = await rawPosts(url, delivered.sample.body, ctx.durationS);
      const appendsPerSecond = await rawAppendsPerSecond(ctx.service.adapterEnv, { durationS: ctx.durationS, warmupS: ctx.warmupS, concurrency: CONCURRENCY });
      // A delivery that is recorded at all costs at least one POST and one append (this dispatcher
      // makes one in the common case: its outcome), even with signing, reads and projections for free.
      const ceiling = serialCeiling(rawPerSecond, appendsPerSecond);

      return [
        figure({
          item: this.name,
          metric: 'signed webhook deliveries (backlog drain)',
          value: deliveriesPerSecond,
          unit: 'req/s',
          baseline: ceiling === null ? null : { label: 'ceiling: raw POST + raw append', value: ceiling },
          targets: [{ on: 'ratio', op: '>=', threshold: TARGET_RATIO }],
          note: `${delivered.distinct} of ${expected} votes delivered (${delivered.count} POSTs, ${delivered.signed} signed) in ${spanS.toFixed(1)} s; raw undici POSTs ${Math.round(rawPerSecond).toLocaleString('en-US')}/s (${CONCURRENCY} conns)`,
        }),
        figure({
          item: this.name,
          metric: 'ceiling: one raw POST + one raw append per delivery, nothing else',
          value: ceiling,
          unit: 'req/s',
          baseline: { label: `raw undici, ${CONCURRENCY} conns`, value: rawPerSecond },
          note: `raw appends ${Math.round(appendsPerSecond).toLocaleString('en-US')}/s in the same run; the deliveries line is measured against it`,
        }),
        figure({ item: this.name, metric: 'service CPU per delivery (all its work, start-up included)', value: cpuMs, unit: 'ms' }),
        ...(drainMs ? drainFigures(this.name, drainMs, ceiling) : []),
        figure({ item: this.name, metric: 'POST /v1/votes building the backlog', value: votes.okPerSecond, unit: 'cmd/s', note: loadProblems(votes) || undefined }),
        figure({
          item: '7 memory',
          metric: 'peak RSS of the dispatching service under 4 webhooks',
          value: peakRss,
          unit: 'MiB',
          targets: [{ on: 'value', op: '<=', threshold: RSS_BOUND_MIB }],
        }),
      ];
    } finally {
      await service.stop();
      await receiver.stop();
    }
  },
};

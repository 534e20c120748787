/**
 * Round trips to the Mongo-wire server per operation, counted by the driver's command monitor in
 * the service itself (MONGO_MONITOR_COMMANDS=true → the `mongo_commands` gauge on /metrics), with
 * the service's CPU per operation. Unlike a rate, a count of commands does not depend on how
 * loaded the machine is.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27019/ [KAFKA_BROKERS=127.0.0.1:19092] npx tsx bench/mongo-round-trips.ts
 *
 * Starts the all-in-one service on the production adapters (a database and Kafka namespace of
 * this run's own; REFERENCE_DATA_IMPORT=false unless set, so it starts in seconds: the breed list
 * is then empty, but a breeds request takes the same path), then for each operation sends
 * ROUND_TRIPS_N requests one at a time (ROUND_TRIPS_CONCURRENCY at a time when set), waits ROUND_TRIPS_SETTLE_MS for the background work
 * (projections, relay, bus consumers) and prints the commands per operation by command and
 * collection: everything the operation causes, in the request and after it. What the service
 * sends while idle over the same window (periodic sweeps, the scrape's own gauges) is subtracted.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createContext } from './harness/context.ts';
import { cpuSecondsOf } from './harness/cpu.ts';
import { request } from 'undici';
import { mongoClient } from '../infrastructure/mongo-client.ts';
import { startService } from './harness/service.ts';
import { describeServersCpu, devServers, serversCpuMeter } from './harness/servers.ts';

const N = Number(process.env.ROUND_TRIPS_N ?? 200);
/** Requests in flight at once: 1 counts what one request causes alone; more shows what batching saves under load. */
const CONCURRENCY = Math.max(1, Number(process.env.ROUND_TRIPS_CONCURRENCY ?? 1));

type Counts = Map<string, number>;

const METRICS_TOKEN = randomBytes(16).toString('hex');

const scrape = async (url: string): Promise<Counts> => {
  const response = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /metrics answered ${response.statusCode}`);
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    const match = /^mongo_commands\{([^}]*)\} (\d+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    counts.set(`${labels.command} ${labels.collection || '-'}`, Number(match[2]));
  }
  return counts;
};

const total = (counts: Counts): number => [...counts.values()].reduce((sum, n) => sum + n, 0);

const SETTLE_MS = Number(process.env.ROUND_TRIPS_SETTLE_MS ?? 3000);

/** `after - before`, per key. */
const minus = (after: Counts, before: Counts): Counts =>
  new Map([...after].map(([key, count]) => [key, count - (before.get(key) ?? 0)] as const).filter(([, count]) => count > 0));

/** Runs `work(0 … count-1)` with `concurrency` calls in flight at once. */
const inFlight = async (count: number, concurrency: number, work: (index: number) => Promise<unknown>): Promise<void> => {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
};

/**
 * The floor under every command: `ping` (no document, no collection) sent by the service's own
 * driver and options from this process, ROUND_TRIPS_N × 10 times at 16 in flight after a warm-up,
 * and the CPU this process spent per ping.
 */
const driverFloor = async (url: string): Promise<string> => {
  const client = mongoClient(url);
  try {
    const admin = client.db('admin');
    const pings = (count: number) => inFlight(count, 16, () => admin.command({ ping: 1 }));
    await pings(1_000);
    const count = N * 10;
    const cpu = process.cpuUsage();
    const started = performance.now();
    await pings(count);
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - started) / 1000;
    return (
      `the driver alone (ping, 16 in flight, from the bench process): ${Math.round(count / seconds)} commands/s, ` +
      `${((used.user + used.system) / count).toFixed(0)} µs of CPU per command`
    );
  } finally {
    await client.close();
  }
};

const main = async () => {
  if (!process.env.MONGO_URL) throw new Error('set MONGO_URL (and KAFKA_BROKERS for the Kafka bus)');
  // Before the service starts, so nothing else is running.
  const floor = await driverFloor(process.env.MONGO_URL);
  const runId = `rt_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const service = await startService('production', runId, {
    env: { MONGO_MONITOR_COMMANDS: 'true', METRICS_TOKEN, REFERENCE_DATA_IMPORT: process.env.REFERENCE_DATA_IMPORT ?? 'false' },
  });
  try {
    const ctx = await createContext(service, { mode: 'production', runId, durationS: 0, warmupS: 0, log: console.log });
    const a = ctx.accounts.a.api_key;
    const operations: { name: string; run: (i: number) => Promise<number> }[] = [
      { name: 'GET /v1/breeds?limit=10', run: async () => (await ctx.request('GET', '/v1/breeds?limit=10', { key: a })).status },
      {
        name: 'POST /v1/votes',
        run: async (i) => (await ctx.request('POST', '/v1/votes', { key: a, body: { image_id: `rt-image-${i % 20}`, value: 1, sub_id: 'rt' } })).status,
      },
      { name: 'GET /v1/votes?limit=10', run: async () => (await ctx.request('GET', '/v1/votes?limit=10', { key: a })).status },
    ];
    const lines: string[] = [floor];
    const servers = devServers();
    // What the service sends with no traffic at all over one settle window plus one scrape (the
    // scrape itself reads checkpoints and counts webhook documents for its gauges): subtracted.
    const idleStart = await scrape(service.url);
    await delay(SETTLE_MS);
    const idle = minus(await scrape(service.url), idleStart);
    lines.push(`idle, per ${SETTLE_MS} ms window + 1 scrape (subtracted below): ${[...idle].map(([key, n]) => `${key} ${n}`).join(', ') || 'nothing'}`);
    for (const operation of operations) {
      await operation.run(-1); // first call outside the count (cold caches)
      await delay(SETTLE_MS);
      const before = await scrape(service.url);
      const cpuBefore = cpuSecondsOf(service.pid);
      const serversCpu = serversCpuMeter(servers);
      const statuses = new Map<number, number>();
      const started = performance.now();
      await inFlight(N, CONCURRENCY, async (i) => {
        const status = await operation.run(i);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      });
      const elapsedMs = performance.now() - started;
      // Background work (projections, relay, bus consumers) finishes within the settle window.
      await delay(SETTLE_MS);
      const cpuAfter = cpuSecondsOf(service.pid);
      const serversUsed = serversCpu.per(N);
      const after = await scrape(service.url);
      const delta = minus(after, before);
      const rows = [...delta]
        .map(([key, count]) => [key, Math.max(0, count - (idle.get(key) ?? 0)) / N] as const)
        .filter(([, perOp]) => perOp > 0)
        .sort((x, y) => y[1] - x[1]);
      const perOp = rows.reduce((sum, [, n]) => sum + n, 0);
      const cpuMs = cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / N : NaN;
      lines.push(
        `\n${operation.name}: ${N} requests ${CONCURRENCY === 1 ? 'one at a time' : `${CONCURRENCY} at a time`} (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}), ` +
          `${perOp.toFixed(2)} Mongo commands per request; mean latency ${(elapsedMs / N).toFixed(2)} ms; ` +
          `service CPU ${cpuMs.toFixed(2)} ms per request (the settle window's idle work included)`,
      );
      if (serversUsed) lines.push(`  server CPU per request (settle window included): ${describeServersCpu(serversUsed)}`);
      for (const [key, n] of rows) lines.push(`  ${n.toFixed(2).padStart(7)}  ${key}`);
    }
    console.log(lines.join('\n'));
  } finally {
    await service.stop();
  }
};

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

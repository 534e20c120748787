/**
 * Round trips to the Mongo-wire server per operation, counted by the driver's command monitor in
 * the service itself (MONGO_MONITOR_COMMANDS=true → the `mongo_commands` gauge on /metrics), with
 * the service's CPU per operation. Unlike a rate, a count of commands does not depend on how
 * loaded the machine is.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27018/ [KAFKA_BROKERS=127.0.0.1:19092] npx tsx bench/mongo-round-trips.ts
 *
 * Starts the all-in-one service on the production adapters (a database and Kafka namespace of
 * this run's own), then for each operation sends ROUND_TRIPS_N requests one at a time, waits until
 * the service stops sending commands (projections, relay, consumers done), and prints the
 * commands per operation by command and collection: everything the operation causes, in the
 * request and after it.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { createContext } from './harness/context.ts';
import { cpuSecondsOf } from './harness/cpu.ts';
import { requestJson } from './harness/http.ts';
import { startService } from './harness/service.ts';

const N = Number(process.env.ROUND_TRIPS_N ?? 200);

type Counts = Map<string, number>;

const scrape = async (url: string, adminKey: string): Promise<Counts> => {
  const response = await requestJson(`${url}/metrics`, { key: adminKey });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const counts: Counts = new Map();
  for (const line of String(response.body).split('\n')) {
    const match = /^mongo_commands\{([^}]*)\} (\d+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    counts.set(`${labels.command} ${labels.collection || '-'}`, Number(match[2]));
  }
  return counts;
};

const total = (counts: Counts): number => [...counts.values()].reduce((sum, n) => sum + n, 0);

/** Scrapes until no command was sent for `quietMs` (bounded): the operation's after-effects are done. */
const settle = async (url: string, adminKey: string, quietMs = 1500, timeoutMs = 60_000): Promise<Counts> => {
  const deadline = Date.now() + timeoutMs;
  let last = await scrape(url, adminKey);
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await delay(250);
    const now = await scrape(url, adminKey);
    if (total(now) !== total(last)) {
      last = now;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= quietMs) {
      return now;
    }
  }
  return last;
};

const main = async () => {
  if (!process.env.MONGO_URL) throw new Error('set MONGO_URL (and KAFKA_BROKERS for the Kafka bus)');
  const runId = `rt_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const service = await startService('production', runId, { env: { MONGO_MONITOR_COMMANDS: 'true' } });
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
    const lines: string[] = [];
    for (const operation of operations) {
      await operation.run(-1); // first call outside the count (cold caches)
      const before = await settle(service.url, service.adminKey);
      const cpuBefore = cpuSecondsOf(service.pid);
      const statuses = new Map<number, number>();
      for (let i = 0; i < N; i++) {
        const status = await operation.run(i);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      const after = await settle(service.url, service.adminKey);
      const cpuAfter = cpuSecondsOf(service.pid);
      const rows = [...after.entries()]
        .map(([key, count]) => [key, (count - (before.get(key) ?? 0)) / N] as const)
        .filter(([, perOp]) => perOp > 0)
        .sort((x, y) => y[1] - x[1]);
      const perOp = rows.reduce((sum, [, n]) => sum + n, 0);
      const cpuMs = cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / N : NaN;
      lines.push(
        `\n${operation.name}: ${N} requests (${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}), ` +
          `${perOp.toFixed(2)} Mongo commands per request, service CPU ${cpuMs.toFixed(2)} ms per request (settling included)`,
      );
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

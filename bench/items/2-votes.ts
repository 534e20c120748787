import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { startChild } from '../harness/children.ts';
import { rawAppendsPerSecond, serialCeiling } from '../harness/raw-appends.ts';
import { cpuMeter } from '../harness/cpu.ts';
import { everyCoreBound, figure } from '../harness/figure.ts';
import { load, loadProblems, warmUp, type LoadOptions } from '../harness/load.ts';
import type { BenchItem } from '../harness/types.ts';
import type { Context } from '../harness/context.ts';
import { startService } from '../harness/service.ts';
import { describeServersCpu, devServers, serversCpuMeter } from '../harness/servers.ts';

const CONNECTIONS = 16;
const CORES = availableParallelism();

/** The target: votes at this share of the ceiling line. */
const TARGET_RATIO = 0.45;

/** A bare Fastify answering POST /v1/votes with the service's own answer from memory, under the same load. */
const bareHttp = async (sample: { status: number; body: string }, votes: Omit<LoadOptions, 'url' | 'durationS'>, durationS: number, warmupS: number) => {
  const bare = startChild('bench/children/bare-fastify.ts');
  try {
    bare.send({ type: 'serve', method: 'POST', path: '/v1/votes', status: sample.status, body: sample.body, headers: { 'content-type': 'application/json; charset=utf-8' } });
    const { port } = await bare.message<{ port: number }>('listening');
    const options = { ...votes, url: `http://127.0.0.1:${port}/v1/votes` };
    await warmUp(options, warmupS);
    return await load({ ...options, durationS });
  } finally {
    await bare.stop();
  }
};

/**
 * The service's request path alone, under the same load: the all-in-one's own HTTP app with appends
 * that cost nothing and nothing in the background (bench/children/request-path.ts), its CPU per vote.
 */
const requestPathAlone = async (ctx: Context, votes: Omit<LoadOptions, 'url' | 'durationS' | 'headers'> & { headers: Record<string, string> }) => {
  const service = await startService(ctx.mode, `${ctx.runId}_request_path`, { script: 'bench/children/request-path.ts' });
  try {
    const key = readFileSync(join(service.dataDir, 'request-path-api-key'), 'utf8');
    const options = { ...votes, headers: { ...votes.headers, 'x-api-key': key }, url: `${service.url}/v1/votes` };
    await warmUp(options, ctx.warmupS);
    const cpu = cpuMeter(service.pid);
    const result = await load({ ...options, durationS: ctx.durationS });
    return { result, cpuMs: cpu.per(result.ok) };
  } finally {
    await service.stop();
  }
};

/**
 * 2. POST /v1/votes commands/s against raw appends/s of the same event store adapter (one event
 * to a new stream with no_stream, in its own process, as many loops as connections).
 *
 * Two more figures say where the target stands on this machine: the HTTP layer alone (a bare
 * Fastify answering the same request from memory, same load generator, same connections) and the
 * ceiling they make together — a vote can go no faster than one bare HTTP exchange plus one raw
 * append, 1 / (1/http + 1/append), even if authentication, the decider, the projections, the
 * relay and the dispatcher cost nothing.
 *
 * Three bounds say what the service's own work allows, whatever the design around it: its request
 * path alone on one event loop (appends and background free, see requestPathAlone), that path plus
 * one raw append in series, and the rate if its measured CPU per vote were spread over every core
 * the load generator leaves (with the service CPU per vote the target would need). On the production
 * adapters the servers running here (scripts/dev-servers: the Mongo-wire server, the Kafka broker)
 * spend their CPU on the same cores: their CPU per vote is measured over the same run, and the
 * last bound counts it too.
 */
export const item: BenchItem = {
  name: '2 votes',
  target: 'POST /v1/votes ≥ 0.45× the ceiling of one bare HTTP exchange + one raw append (same run) and ≥ 2,000/s; p50/p99 reported',
  async run(ctx) {
    const rawPerSecond = await rawAppendsPerSecond(ctx.service.adapterEnv, { durationS: ctx.durationS, warmupS: ctx.warmupS, concurrency: CONNECTIONS });

    const body = JSON.stringify({ image_id: 'bench-image', value: 1, sub_id: 'bench' });
    const shape = {
      method: 'POST' as const,
      headers: { 'x-api-key': ctx.accounts.a.api_key, 'content-type': 'application/json' },
      body,
      connections: CONNECTIONS,
    };
    const votes = { ...shape, url: `${ctx.service.url}/v1/votes` };
    const sample = await ctx.request('POST', '/v1/votes', { key: ctx.accounts.a.api_key, body: JSON.parse(body) });
    if (sample.status !== 201) throw new Error(`POST /v1/votes answered ${sample.status} ${JSON.stringify(sample.body)}`);
    await warmUp(votes, ctx.warmupS);
    const cpu = cpuMeter(ctx.service.pid);
    const loadGenerator = cpuMeter(process.pid);
    const servers = serversCpuMeter(ctx.mode === 'production' ? devServers() : []);
    const result = await load({ ...votes, durationS: ctx.durationS });
    const cpuMs = cpu.per(result.ok);
    const loadGeneratorMs = loadGenerator.per(result.ok);
    const serversCpu = servers.per(result.ok);
    const problems = loadProblems(result);

    const http = await bareHttp({ status: sample.status, body: JSON.stringify(sample.body) }, shape, ctx.durationS, ctx.warmupS);
    const ceiling = serialCeiling(http.okPerSecond, rawPerSecond);
    const alone = await requestPathAlone(ctx, shape);
    const aloneWithAppend = serialCeiling(alone.result.okPerSecond, rawPerSecond);
    return [
      figure({
        item: this.name,
        metric: 'POST /v1/votes',
        value: result.okPerSecond,
        unit: 'cmd/s',
        baseline: ceiling === null ? null : { label: 'ceiling: bare HTTP exchange + raw append', value: ceiling },
        targets: [
          { on: 'ratio', op: '>=', threshold: TARGET_RATIO },
          { on: 'value', op: '>=', threshold: 2000 },
        ],
        note: [problems, `${CONNECTIONS} connections`].filter(Boolean).join('; '),
      }),
      figure({
        item: this.name,
        metric: 'POST /v1/votes against raw appends alone',
        value: result.okPerSecond,
        unit: 'cmd/s',
        baseline: { label: 'raw appends', value: rawPerSecond },
      }),
      figure({ item: this.name, metric: 'POST /v1/votes latency p50', value: result.latencyP50, unit: 'ms' }),
      figure({ item: this.name, metric: 'POST /v1/votes latency p99', value: result.latencyP99, unit: 'ms' }),
      figure({ item: this.name, metric: 'service CPU per vote (all its work)', value: cpuMs, unit: 'ms' }),
      figure({
        item: this.name,
        metric: 'POST /v1/votes against the HTTP layer alone',
        value: result.okPerSecond,
        unit: 'cmd/s',
        baseline: { label: 'bare Fastify, same answer from memory', value: http.okPerSecond },
        note: [loadProblems(http), `p99 ${result.latencyP99} ms vs ${http.latencyP99} ms`].filter(Boolean).join('; '),
      }),
      figure({
        item: this.name,
        metric: 'ceiling: one bare HTTP exchange + one raw append, nothing else',
        value: ceiling,
        unit: 'cmd/s',
        baseline: { label: 'raw appends', value: rawPerSecond },
        note: '1 / (1/http + 1/append): what any service answering over HTTP after one append could reach here',
      }),
      figure({
        item: this.name,
        metric: 'the request path alone: the same app, appends that cost nothing, nothing in the background',
        value: alone.result.okPerSecond,
        unit: 'cmd/s',
        baseline: ceiling === null ? null : { label: 'ceiling: bare HTTP exchange + raw append', value: ceiling },
        note: [loadProblems(alone.result), `${alone.cpuMs?.toFixed(3) ?? '?'} ms CPU per vote; p99 ${alone.result.latencyP99} ms`].filter(Boolean).join('; '),
      }),
      figure({
        item: this.name,
        metric: 'the request path alone + one raw append, in series',
        value: aloneWithAppend,
        unit: 'cmd/s',
        baseline: ceiling === null ? null : { label: 'ceiling: bare HTTP exchange + raw append', value: ceiling },
        note: '1 / (1/request path alone + 1/append), both measured above: the most a service appending on its request thread could reach, whatever its background costs',
      }),
      ...(serversCpu ? [figure({ item: this.name, metric: "the servers' CPU per vote, on the same cores", value: serversCpu.totalMs, unit: 'ms', note: describeServersCpu(serversCpu) })] : []),
      ...(cpuMs === null || loadGeneratorMs === null || ceiling === null
        ? []
        : [
            figure({
              item: this.name,
              metric: serversCpu
                ? "every core busy: the service's and the servers' CPU per vote, spread over all the cores the load generator leaves"
                : "every core busy: the service's CPU per vote, spread over all the cores the load generator leaves",
              unit: 'cmd/s',
              baseline: { label: 'ceiling: bare HTTP exchange + raw append', value: ceiling },
              ...everyCoreBound(
                CORES,
                cpuMs,
                [...(serversCpu ? [{ label: 'servers', ms: serversCpu.totalMs }] : []), { label: 'load generator', ms: loadGeneratorMs }],
                { ratio: TARGET_RATIO, ceiling },
                'vote',
              ),
            }),
          ]),
    ];
  },
};

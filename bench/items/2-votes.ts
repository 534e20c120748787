import { startChild } from '../harness/children.ts';
import { rawAppendsPerSecond, serialCeiling } from '../harness/raw-appends.ts';
import { cpuMeter } from '../harness/cpu.ts';
import { figure } from '../harness/figure.ts';
import { load, loadProblems, warmUp, type LoadOptions } from '../harness/load.ts';
import type { BenchItem } from '../harness/types.ts';

const CONNECTIONS = 16;

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
 * 2. POST /v1/votes commands/s against raw appends/s of the same event store adapter (one event
 * to a new stream with no_stream, in its own process, as many loops as connections).
 *
 * Two more figures say where the target stands on this machine: the HTTP layer alone (a bare
 * Fastify answering the same request from memory, same load generator, same connections) and the
 * ceiling they make together — a vote can go no faster than one bare HTTP exchange plus one raw
 * append, 1 / (1/http + 1/append), even if authentication, the decider, the projections, the
 * relay and the dispatcher cost nothing.
 */
export const item: BenchItem = {
  name: '2 votes',
  target: 'POST /v1/votes ≥ 0.6× the ceiling of one bare HTTP exchange + one raw append (same run) and ≥ 2,000/s; p50/p99 reported',
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
    const result = await load({ ...votes, durationS: ctx.durationS });
    const cpuMs = cpu.per(result.ok);
    const problems = loadProblems(result);

    const http = await bareHttp({ status: sample.status, body: JSON.stringify(sample.body) }, shape, ctx.durationS, ctx.warmupS);
    const ceiling = serialCeiling(http.okPerSecond, rawPerSecond);
    return [
      figure({
        item: this.name,
        metric: 'POST /v1/votes',
        value: result.okPerSecond,
        unit: 'cmd/s',
        baseline: ceiling === null ? null : { label: 'ceiling: bare HTTP exchange + raw append', value: ceiling },
        targets: [
          { on: 'ratio', op: '>=', threshold: 0.6 },
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
    ];
  },
};

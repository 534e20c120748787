import { startChild } from '../harness/children.ts';
import { cpuMeter } from '../harness/cpu.ts';
import { unlessAnswers } from '../harness/context.ts';
import { figure } from '../harness/figure.ts';
import { load, loadProblems, warmUp } from '../harness/load.ts';
import type { BenchItem } from '../harness/types.ts';

const PATH = '/v1/breeds?limit=10';
const CONNECTIONS = 16;

/**
 * 1. GET /v1/breeds?limit=10 req/s against a bare Fastify (own process) answering the same bytes
 * from memory: what auth, validation, the read model and serialisation cost on the read path.
 */
export const item: BenchItem = {
  name: '1 breeds',
  target: 'GET /v1/breeds?limit=10 ≥ 0.8× a bare Fastify serving the same JSON',
  available: (ctx) => unlessAnswers(ctx, PATH),
  async run(ctx) {
    const key = ctx.accounts.a.api_key;
    const sample = await ctx.request('GET', PATH, { key });
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    for (const [name, value] of Object.entries(sample.headers)) {
      if (name.startsWith('pagination-') && typeof value === 'string') headers[name] = value;
    }
    const bare = startChild('bench/children/bare-fastify.ts');
    try {
      bare.send({ type: 'serve', path: '/v1/breeds', body: JSON.stringify(sample.body), headers });
      const { port } = await bare.message<{ port: number }>('listening');
      const service = { url: `${ctx.service.url}${PATH}`, headers: { 'x-api-key': key }, connections: CONNECTIONS };
      const baseline = { url: `http://127.0.0.1:${port}${PATH}`, headers: { 'x-api-key': key }, connections: CONNECTIONS };
      await warmUp(service, ctx.warmupS);
      const cpu = cpuMeter(ctx.service.pid);
      const measured = await load({ ...service, durationS: ctx.durationS });
      const cpuMs = cpu.per(measured.ok);
      await warmUp(baseline, ctx.warmupS);
      const bareResult = await load({ ...baseline, durationS: ctx.durationS });
      return [
        figure({
          item: this.name,
          metric: 'GET /v1/breeds?limit=10',
          value: measured.okPerSecond,
          unit: 'req/s',
          baseline: { label: 'bare Fastify', value: bareResult.okPerSecond },
          targets: [{ on: 'ratio', op: '>=', threshold: 0.8 }],
          note: [loadProblems(measured), `p99 ${measured.latencyP99} ms vs ${bareResult.latencyP99} ms, ${CONNECTIONS} connections`].filter(Boolean).join('; '),
        }),
        figure({ item: this.name, metric: 'service CPU per request', value: cpuMs, unit: 'ms' }),
      ];
    } finally {
      await bare.stop();
    }
  },
};

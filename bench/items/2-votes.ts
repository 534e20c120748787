import { startChild } from '../harness/children.ts';
import { cpuMeter } from '../harness/cpu.ts';
import { figure } from '../harness/figure.ts';
import { load, loadProblems, warmUp } from '../harness/load.ts';
import type { BenchItem } from '../harness/types.ts';

const CONNECTIONS = 16;

/**
 * 2. POST /v1/votes commands/s against raw appends/s of the same event store adapter (one event
 * to a new stream with no_stream, in its own process, as many loops as connections).
 */
export const item: BenchItem = {
  name: '2 votes',
  target: 'POST /v1/votes ≥ 0.5× raw appends/s and ≥ 2,000/s; p50/p99 reported',
  async run(ctx) {
    const raw = startChild('bench/children/raw-appends.ts', { env: ctx.service.adapterEnv });
    let appends: { appends: number; seconds: number };
    try {
      raw.send({ type: 'run', durationS: ctx.durationS, warmupS: ctx.warmupS, concurrency: CONNECTIONS });
      appends = await raw.message('result', (ctx.durationS + ctx.warmupS) * 1000 + 60_000);
    } finally {
      await raw.stop();
    }
    const rawPerSecond = appends.appends / appends.seconds;

    const votes = {
      url: `${ctx.service.url}/v1/votes`,
      method: 'POST' as const,
      headers: { 'x-api-key': ctx.accounts.a.api_key, 'content-type': 'application/json' },
      body: JSON.stringify({ image_id: 'bench-image', value: 1, sub_id: 'bench' }),
      connections: CONNECTIONS,
    };
    await warmUp(votes, ctx.warmupS);
    const cpu = cpuMeter(ctx.service.pid);
    const result = await load({ ...votes, durationS: ctx.durationS });
    const cpuMs = cpu.per(result.ok);
    const problems = loadProblems(result);
    return [
      figure({
        item: this.name,
        metric: 'POST /v1/votes',
        value: result.okPerSecond,
        unit: 'cmd/s',
        baseline: { label: 'raw appends', value: rawPerSecond },
        targets: [
          { on: 'ratio', op: '>=', threshold: 0.5 },
          { on: 'value', op: '>=', threshold: 2000 },
        ],
        note: [problems, `${CONNECTIONS} connections`].filter(Boolean).join('; '),
      }),
      figure({ item: this.name, metric: 'POST /v1/votes latency p50', value: result.latencyP50, unit: 'ms' }),
      figure({ item: this.name, metric: 'POST /v1/votes latency p99', value: result.latencyP99, unit: 'ms' }),
      figure({ item: this.name, metric: 'service CPU per vote (all its work)', value: cpuMs, unit: 'ms' }),
    ];
  },
};

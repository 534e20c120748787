import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { startChild, type Child } from '../harness/children.ts';
import { unlessAnswers } from '../harness/context.ts';
import { figure } from '../harness/figure.ts';
import { load, loadProblems } from '../harness/load.ts';
import type { BenchItem } from '../harness/types.ts';

/** The dispatcher's default number of concurrent attempts: the raw baseline uses as many connections. */
const CONCURRENCY = 64;
const CONNECTIONS = 16;

type Stats = { count: number; signed: number; first_at: number | null; last_at: number | null; sample: { body: string; headers: Record<string, string> } | null };

const stats = (receiver: Child): Promise<Stats> => {
  receiver.send({ type: 'stats' });
  return receiver.message<Stats>('stats');
};

const reset = async (receiver: Child): Promise<void> => {
  receiver.send({ type: 'reset' });
  await receiver.message('reset');
};

/** Waits until `expected` deliveries arrived, or none came for `quietMs` (bounded by `maxMs`). */
const drain = async (receiver: Child, expected: number, quietMs: number, maxMs: number): Promise<Stats> => {
  const deadline = Date.now() + maxMs;
  let last = await stats(receiver);
  let progressAt = Date.now();
  while (last.count < expected && Date.now() < deadline && Date.now() - progressAt < quietMs) {
    await delay(250);
    const now = await stats(receiver);
    if (now.count > last.count) progressAt = Date.now();
    last = now;
  }
  return last;
};

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
 * 4. Signed webhook deliveries/s against raw undici POSTs/s to the same local receiver (its own
 * process). Events come from POST /v1/votes by an account whose endpoint subscribes to
 * vote.created; deliveries are counted at the receiver from the first to the last one, after the
 * votes stop and the backlog drains.
 */
export const item: BenchItem = {
  name: '4 webhooks',
  target: 'signed deliveries/s ≥ 0.5× raw undici POSTs/s to the same receiver',
  available: (ctx) => unlessAnswers(ctx, '/v1/webhooks'),
  async run(ctx) {
    const receiver = startChild('bench/children/receiver.ts');
    try {
      const { port } = await receiver.message<{ port: number }>('listening');
      const url = `http://127.0.0.1:${port}/hook`;
      const account = await ctx.createAccount('bench webhooks');
      const created = await ctx.request('POST', '/v1/webhooks', {
        key: account.api_key,
        body: { url, description: 'bench receiver', enabled_events: ['vote.created'] },
      });
      if (created.status !== 201) throw new Error(`registering the endpoint answered ${created.status} ${JSON.stringify(created.body)}`);

      // One vote first: the pipeline works, and the receiver has a sample body for the baseline.
      const first = await ctx.request('POST', '/v1/votes', { key: account.api_key, body: { image_id: 'bench-hook', value: 1 } });
      if (first.status !== 201) throw new Error(`POST /v1/votes answered ${first.status}`);
      const warm = await drain(receiver, 1, 15_000, 15_000);
      if (warm.count < 1 || !warm.sample) throw new Error('no delivery reached the receiver within 15 s');
      await reset(receiver);

      const votes = await load({
        url: `${ctx.service.url}/v1/votes`,
        method: 'POST',
        headers: { 'x-api-key': account.api_key, 'content-type': 'application/json' },
        body: JSON.stringify({ image_id: 'bench-hook', value: 1, sub_id: 'hook' }),
        connections: CONNECTIONS,
        durationS: ctx.durationS,
      });
      const delivered = await drain(receiver, votes.ok, 10_000, 120_000);
      const spanS = delivered.first_at !== null && delivered.last_at !== null ? (delivered.last_at - delivered.first_at) / 1000 : 0;
      const deliveriesPerSecond = spanS > 0 ? delivered.count / spanS : null;

      await reset(receiver);
      const rawPerSecond = await rawPosts(url, warm.sample.body, ctx.durationS);
      await ctx.request('DELETE', `/v1/webhooks/${(created.body as { id: string }).id}`, { key: account.api_key });

      return [
        figure({
          item: this.name,
          metric: 'signed webhook deliveries',
          value: deliveriesPerSecond,
          unit: 'req/s',
          baseline: { label: `raw undici, ${CONCURRENCY} conns`, value: rawPerSecond },
          targets: [{ on: 'ratio', op: '>=', threshold: 0.5 }],
          note: `${delivered.count} of ${votes.ok} delivered (${delivered.signed} signed) in ${spanS.toFixed(1)} s`,
        }),
        figure({
          item: this.name,
          metric: 'POST /v1/votes while delivering',
          value: votes.okPerSecond,
          unit: 'cmd/s',
          note: loadProblems(votes) || undefined,
        }),
      ];
    } finally {
      await receiver.stop();
    }
  },
};

import { setTimeout as delay } from 'node:timers/promises';
import { Pool } from 'undici';
import { figure } from '../harness/figure.ts';
import { percentile } from '../harness/stats.ts';
import type { BenchItem } from '../harness/types.ts';

const RATE = 1000;
const SAMPLE_EVERY = 20;
const GIVE_UP_MS = 5000;

/**
 * 3. Projection lag, measured from outside: account A casts votes at a fixed 1,000/s; for every
 * 20th vote, from the moment its 201 arrives, account B asks GET /v1/votes/{id} back to back until
 * the answer turns from 404 (not projected yet) into 403 (projected, someone else's). B never
 * writes, so read-your-writes never makes it wait: the time is the projection's own. Nothing is
 * subtracted: the figure includes up to one poll round trip (well under a millisecond idle).
 */
export const item: BenchItem = {
  name: '3 projection lag',
  target: `append → visible in the query API at ${RATE.toLocaleString('en-US')} cmd/s: p99 ≤ 50 ms`,
  async run(ctx) {
    const writer = new Pool(ctx.service.url, { connections: 64 });
    const reader = new Pool(ctx.service.url, { connections: 32 });
    const lags: number[] = [];
    let created = 0;
    let failed = 0;
    let gaveUp = 0;
    let pollErrors = 0;
    const body = JSON.stringify({ image_id: 'bench-lag', value: 1, sub_id: 'lag' });

    const untilVisible = async (id: number, since: number): Promise<void> => {
      for (;;) {
        const response = await reader.request({ path: `/v1/votes/${id}`, method: 'GET', headers: { 'x-api-key': ctx.accounts.b.api_key } });
        await response.body.dump();
        const now = performance.now();
        if (response.statusCode === 403) {
          lags.push(now - since);
          return;
        }
        if (response.statusCode !== 404) pollErrors += 1;
        if (now - since > GIVE_UP_MS) {
          gaveUp += 1;
          lags.push(now - since);
          return;
        }
      }
    };

    const cast = async (index: number): Promise<void> => {
      const response = await writer.request({
        path: '/v1/votes',
        method: 'POST',
        headers: { 'x-api-key': ctx.accounts.a.api_key, 'content-type': 'application/json' },
        body,
      });
      const text = await response.body.text();
      const answeredAt = performance.now();
      if (response.statusCode !== 201) {
        failed += 1;
        return;
      }
      created += 1;
      if (index % SAMPLE_EVERY === 0) await untilVisible((JSON.parse(text) as { id: number }).id, answeredAt);
    };

    const pending = new Set<Promise<void>>();
    const started = performance.now();
    const end = started + ctx.durationS * 1000;
    let sent = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      while (sent < due) {
        const task = cast(sent).catch(() => void (failed += 1));
        pending.add(task);
        void task.finally(() => pending.delete(task));
        sent += 1;
      }
      await delay(2);
    }
    const sendingSeconds = (performance.now() - started) / 1000;
    await Promise.all(pending);
    await Promise.all([writer.close(), reader.close()]);

    const note = [
      `${lags.length} samples`,
      gaveUp ? `${gaveUp} not visible within ${GIVE_UP_MS} ms (counted as ${GIVE_UP_MS} ms)` : '',
      failed ? `${failed} votes failed` : '',
      pollErrors ? `${pollErrors} polls answered neither 403 nor 404` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const achieved = created / sendingSeconds;
    return [
      figure({
        item: this.name,
        metric: 'commands/s offered → accepted',
        value: achieved,
        unit: 'cmd/s',
        targets: [{ on: 'value', op: '>=', threshold: RATE * 0.98 }],
        note: `fixed rate ${RATE}/s`,
      }),
      figure({ item: this.name, metric: 'projection lag p50', value: percentile(lags, 50), unit: 'ms', note }),
      figure({
        item: this.name,
        metric: 'projection lag p99',
        value: percentile(lags, 99),
        unit: 'ms',
        targets: [{ on: 'value', op: '<=', threshold: 50 }],
      }),
    ];
  },
};

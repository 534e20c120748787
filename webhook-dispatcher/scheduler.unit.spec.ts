import { describe, expect, it } from 'vitest';
import { createScheduler, type Job, type SchedulerOptions } from './scheduler.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const job = (id: string, webhookId = 'w1'): Job => ({ id, webhookId });
const limits = (overrides: Partial<SchedulerOptions> = {}): SchedulerOptions => ({
  total: 10,
  perEndpoint: 10,
  maxJobs: 100,
  maxJobsPerEndpoint: 100,
  onError: () => undefined,
  ...overrides,
});

describe('delivery timetable', () => {
  it('runs due work concurrently: a slow job never holds up another', async () => {
    const finished: string[] = [];
    const scheduler = createScheduler(async ({ id }) => {
      await sleep(id === 'slow' ? 500 : 10);
      finished.push(id);
    }, limits());
    scheduler.enqueue(job('slow'));
    scheduler.enqueue(job('fast'));
    await sleep(100);
    expect(finished).toEqual(['fast']);
    await scheduler.stop();
    expect(finished).toEqual(['fast', 'slow']);
  });

  it('waits until the due time; an id queued twice runs once; asked again while running, it runs again afterwards', async () => {
    const runs: [string, number][] = [];
    const start = Date.now();
    let release: () => void = () => undefined;
    const scheduler = createScheduler(async ({ id }) => {
      runs.push([id, Date.now() - start]);
      if (id === 'busy' && runs.filter(([run]) => run === 'busy').length === 1) await new Promise<void>((resolve) => (release = resolve));
    }, limits());
    scheduler.enqueue(job('later'), Date.now() + 300);
    scheduler.enqueue(job('later'), Date.now() + 400);
    const busy = job('busy');
    scheduler.enqueue(busy);
    await sleep(50);
    expect(scheduler.has('busy')).toBe(true);
    scheduler.enqueue(busy, Date.now() + 100);
    release();
    await sleep(500);
    await scheduler.stop();
    expect(runs.filter(([id]) => id === 'later')).toHaveLength(1);
    expect(runs.find(([id]) => id === 'later')![1]).toBeGreaterThanOrEqual(290);
    const busyRuns = runs.filter(([id]) => id === 'busy');
    expect(busyRuns).toHaveLength(2);
    expect(busyRuns[1][1] - busyRuns[0][1]).toBeGreaterThanOrEqual(90);
    expect(scheduler.size()).toBe(0);
  });

  it('reports a failing job and carries on; nothing runs after stop', async () => {
    const errors: string[] = [];
    const runs: string[] = [];
    const scheduler = createScheduler(
      async ({ id }) => {
        runs.push(id);
        if (id === 'bad') throw new Error('boom');
      },
      limits({ total: 1, onError: (_error, failed) => errors.push(failed.id) }),
    );
    scheduler.enqueue(job('bad'));
    scheduler.enqueue(job('good'));
    await sleep(100);
    expect(errors).toEqual(['bad']);
    expect(runs.sort()).toEqual(['bad', 'good']);
    scheduler.enqueue(job('late'), Date.now() + 100);
    await scheduler.stop();
    await sleep(200);
    expect(runs).not.toContain('late');
  });

  it('gives each endpoint at most its share of the slots, and endpoints take turns', async () => {
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const order: string[] = [];
    const scheduler = createScheduler(
      async ({ webhookId }) => {
        order.push(webhookId);
        running.set(webhookId, (running.get(webhookId) ?? 0) + 1);
        peak.set(webhookId, Math.max(peak.get(webhookId) ?? 0, running.get(webhookId)!));
        await sleep(webhookId === 'dead' ? 400 : 5);
        running.set(webhookId, running.get(webhookId)! - 1);
      },
      limits({ total: 6, perEndpoint: 4 }),
    );
    for (let i = 0; i < 20; i++) scheduler.enqueue(job(`d${i}`, 'dead'));
    for (let i = 0; i < 20; i++) scheduler.enqueue(job(`h${i}`, 'healthy'));
    const started = Date.now();
    while (order.filter((id) => id === 'healthy').length < 20 && Date.now() - started < 2000) await sleep(5);
    // all twenty healthy jobs ran while the dead endpoint's first four were still hanging
    expect(Date.now() - started).toBeLessThan(350);
    expect(order.filter((id) => id === 'dead')).toHaveLength(4);
    expect(order.slice(0, 2).sort()).toEqual(['dead', 'healthy']);
    await scheduler.stop();
    expect(peak.get('dead')).toBe(4);
    expect(peak.get('healthy')).toBeLessThanOrEqual(4);
  });

  it('holds a bounded number of jobs, in all and per endpoint, and takes more once some are done', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const scheduler = createScheduler(() => gate, limits({ total: 1, maxJobs: 5, maxJobsPerEndpoint: 3 }));
    expect([1, 2, 3, 4].map((i) => scheduler.enqueue(job(`a${i}`, 'a')))).toEqual([true, true, true, false]);
    expect([1, 2, 3].map((i) => scheduler.enqueue(job(`b${i}`, 'b')))).toEqual([true, true, false]);
    expect(scheduler.size()).toBe(5);
    expect(scheduler.size('a')).toBe(3);
    release();
    await sleep(20);
    expect(scheduler.size()).toBe(0);
    expect(scheduler.enqueue(job('a4', 'a'))).toBe(true);
    await scheduler.stop();
  });
});

import { describe, expect, it } from 'vitest';
import { createScheduler } from './scheduler.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('delivery timetable', () => {
  it('runs due work concurrently: a slow job never holds up another', async () => {
    const finished: string[] = [];
    const scheduler = createScheduler(
      async (id) => {
        await sleep(id === 'slow' ? 500 : 10);
        finished.push(id);
      },
      { maxConcurrent: 10, onError: () => undefined },
    );
    scheduler.enqueue('slow');
    scheduler.enqueue('fast');
    await sleep(100);
    expect(finished).toEqual(['fast']);
    await scheduler.stop();
    expect(finished).toEqual(['fast', 'slow']);
  });

  it('waits until the due time; an id queued twice runs once; asked again while running, it runs again afterwards', async () => {
    const runs: [string, number][] = [];
    const start = Date.now();
    let release: () => void = () => undefined;
    const scheduler = createScheduler(
      async (id) => {
        runs.push([id, Date.now() - start]);
        if (id === 'busy' && runs.filter(([run]) => run === 'busy').length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      { maxConcurrent: 10, onError: () => undefined },
    );
    scheduler.enqueue('later', Date.now() + 300);
    scheduler.enqueue('later', Date.now() + 400);
    scheduler.enqueue('busy');
    await sleep(50);
    scheduler.enqueue('busy');
    release();
    await sleep(500);
    await scheduler.stop();
    expect(runs.filter(([id]) => id === 'later')).toHaveLength(1);
    expect(runs.find(([id]) => id === 'later')![1]).toBeGreaterThanOrEqual(290);
    expect(runs.filter(([id]) => id === 'busy')).toHaveLength(2);
  });

  it('reports a failing job and carries on; nothing runs after stop', async () => {
    const errors: string[] = [];
    const runs: string[] = [];
    const scheduler = createScheduler(
      async (id) => {
        runs.push(id);
        if (id === 'bad') throw new Error('boom');
      },
      { maxConcurrent: 1, onError: (_error, id) => errors.push(id) },
    );
    scheduler.enqueue('bad');
    scheduler.enqueue('good');
    await sleep(100);
    expect(errors).toEqual(['bad']);
    expect(runs.sort()).toEqual(['bad', 'good']);
    scheduler.enqueue('late', Date.now() + 100);
    await scheduler.stop();
    await sleep(200);
    expect(runs).not.toContain('late');
  });
});

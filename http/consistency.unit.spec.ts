import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inMemoryWritePositions } from '../infrastructure/consistency/write-positions.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { readsDependOn, registerReadYourWrites } from './consistency.ts';

const PROJECTIONS = ['votes', 'images', 'breeds'];

/** A query surface as the query API builds it: breeds depend on image writes, facts on none, votes on any. */
const surface = async (timeoutMs: number) => {
  const readStore = embeddedReadStore();
  const positions = inMemoryWritePositions();
  const app = Fastify();
  app.decorateRequest('account', null);
  app.decorateRequest('writePositions', null);
  app.addHook('onRequest', async (request) => {
    request.account = { id: 'a1' } as never;
  });
  registerReadYourWrites(app, { readStore, writePositions: positions, projections: PROJECTIONS, timeoutMs });
  await app.register(async (instance: FastifyInstance) => {
    readsDependOn(instance, ['images']);
    instance.get('/breeds', async () => []);
  });
  await app.register(async (instance: FastifyInstance) => {
    readsDependOn(instance, []);
    instance.get('/facts', async () => []);
  });
  app.get('/votes', async () => []);
  const moveCheckpoints = (position: bigint) => Promise.all(PROJECTIONS.map((name) => readStore.setCheckpoint(name, position)));
  return { app, readStore, positions, moveCheckpoints, get: (url: string) => app.inject({ method: 'GET', url }) };
};

let open: FastifyInstance | null = null;
afterEach(async () => {
  await open?.close();
  open = null;
});

describe('read-your-writes by kind of write', () => {
  it('lets a breed or fact read by an account whose last write was a vote answer without waiting for that vote', async () => {
    const { app, readStore, positions, moveCheckpoints, get } = await surface(10_000);
    open = app;
    await moveCheckpoints(5n);
    await positions.record('a1', 10n, 'votes');
    const wait = vi.spyOn(readStore, 'waitForCheckpoints');

    const breeds = await get('/breeds');
    expect(breeds.statusCode).toBe(200);
    expect(breeds.headers['x-consistency']).toBeUndefined();
    expect((await get('/facts')).headers['x-consistency']).toBeUndefined();
    expect(wait).not.toHaveBeenCalled();

    // A read that depends on votes (any write) still waits until the vote is projected.
    const votes = get('/votes');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(wait).toHaveBeenCalledWith(PROJECTIONS, 10n, 10_000);
    await moveCheckpoints(10n);
    expect((await votes).headers['x-consistency']).toBeUndefined();
  });

  it('makes a breed read wait for the caller’s own image write, and say stale when it is not projected in time', async () => {
    const { app, positions, moveCheckpoints, get } = await surface(30);
    open = app;
    await moveCheckpoints(5n);
    await positions.record('a1', 7n, 'images');
    await positions.record('a1', 9n, 'votes');
    expect((await get('/breeds')).headers['x-consistency']).toBe('stale');
    expect((await get('/facts')).headers['x-consistency']).toBeUndefined();
    await moveCheckpoints(7n);
    expect((await get('/breeds')).headers['x-consistency']).toBeUndefined();
    expect((await get('/votes')).headers['x-consistency']).toBe('stale');
  });
});

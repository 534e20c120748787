import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inMemoryWritePositions, type AccountPositions, type WritePositions } from '../infrastructure/consistency/write-positions.ts';
import { embeddedReadStore } from '../infrastructure/read-store/embedded.ts';
import { readsDependOn, registerReadYourWrites } from './consistency.ts';

const PROJECTIONS = ['votes', 'images', 'breeds'];

/**
 * A query surface as the query API builds it: breeds depend on writes on public images, facts on
 * none, votes on any. `authenticated`: positions as authentication leaves them on the request.
 */
const surface = async (timeoutMs: number, positions: WritePositions = inMemoryWritePositions(), authenticated?: () => Promise<AccountPositions>) => {
  const readStore = embeddedReadStore();
  const app = Fastify();
  app.decorateRequest('account', null);
  app.decorateRequest('writePositions', null);
  app.addHook('onRequest', async (request) => {
    request.account = { id: 'a1' } as never;
    if (authenticated) request.writePositions = { ...(await authenticated()), from: positions };
  });
  registerReadYourWrites(app, { readStore, writePositions: positions, projections: PROJECTIONS, timeoutMs });
  await app.register(async (instance: FastifyInstance) => {
    readsDependOn(instance, ['public-images']);
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
    await positions.record('a1', 7n, 'public-images');
    await positions.record('a1', 9n, 'votes');
    expect((await get('/breeds')).headers['x-consistency']).toBe('stale');
    expect((await get('/facts')).headers['x-consistency']).toBeUndefined();
    await moveCheckpoints(7n);
    expect((await get('/breeds')).headers['x-consistency']).toBeUndefined();
    expect((await get('/votes')).headers['x-consistency']).toBe('stale');
  });

  it('answers reads of leased kinds from leased positions, and looks up afresh for any other read', async () => {
    // A shared store's lease: what a lookup made before this request saw (nothing), and what the store holds now.
    const before: AccountPositions = { lastWrite: null, lastAccountChange: null };
    const now: AccountPositions = { lastWrite: 9n, lastAccountChange: null, byKind: { votes: 9n } };
    const leased: WritePositions = { ...inMemoryWritePositions(), leaseMs: 250, leasedPositions: async () => before, positions: async () => now };
    const fresh = vi.spyOn(leased, 'positions');
    const { app, moveCheckpoints, get } = await surface(30, leased, () => leased.leasedPositions('a1'));
    open = app;
    await moveCheckpoints(5n);
    expect((await get('/breeds')).headers['x-consistency']).toBeUndefined();
    expect((await get('/facts')).headers['x-consistency']).toBeUndefined();
    expect(fresh).not.toHaveBeenCalled();
    // The caller's vote is not in what the leased lookup saw: the votes read asks the store itself.
    expect((await get('/votes')).headers['x-consistency']).toBe('stale');
    expect(fresh).toHaveBeenCalledTimes(1);
    await moveCheckpoints(9n);
    expect((await get('/votes')).headers['x-consistency']).toBeUndefined();
  });
});

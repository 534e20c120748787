import { EventEmitter } from 'node:events';
import type { MongoClient } from 'mongodb';
import { afterEach, describe, expect, it } from 'vitest';
import { countReturns, LOST_GRACE_MS, mongoUnreachable, watchReachability } from './mongo-reachability.ts';

/** A client as the driver's SDAM events describe it: one server of the given type. */
const sdam = () => {
  const client = new EventEmitter();
  watchReachability(client as unknown as MongoClient);
  const server = (type: string) => client.emit('topologyDescriptionChanged', { newDescription: { servers: new Map([['127.0.0.1:27017', { type }]]) } });
  return { server, close: () => client.emit('topologyClosed') };
};

describe('mongoUnreachable (the driver\'s own view of its servers)', () => {
  const clients: ReturnType<typeof sdam>[] = [];
  const watched = () => {
    const client = sdam();
    clients.push(client);
    return client;
  };
  afterEach(() => clients.splice(0).forEach((client) => client.close()));

  it('a client still connecting is not lost; one that had its server and lost it is, after the grace', () => {
    const client = watched();
    client.server('Unknown');
    expect(mongoUnreachable(Date.now() + 60_000)).toBe(false);
    client.server('Standalone');
    client.server('Unknown');
    expect(mongoUnreachable()).toBe(false);
    expect(mongoUnreachable(Date.now() + LOST_GRACE_MS + 10)).toBe(true);
  });

  it('is back at the first successful check, and a closed client no longer counts', () => {
    const client = watched();
    client.server('Standalone');
    client.server('Unknown');
    client.server('Unknown');
    const later = Date.now() + LOST_GRACE_MS + 10;
    expect(mongoUnreachable(later)).toBe(true);
    client.server('Standalone');
    expect(mongoUnreachable(later)).toBe(false);
    client.server('Unknown');
    expect(mongoUnreachable(Date.now() + LOST_GRACE_MS + 10)).toBe(true);
    client.close();
    expect(mongoUnreachable(Date.now() + LOST_GRACE_MS + 10)).toBe(false);
  });

  it('a replica set is lost only when none of its members can be reached', () => {
    const client = new EventEmitter();
    watchReachability(client as unknown as MongoClient);
    clients.push({ server: () => false, close: () => client.emit('topologyClosed') });
    const members = (a: string, b: string) =>
      client.emit('topologyDescriptionChanged', { newDescription: { servers: new Map([['a:1', { type: a }], ['b:1', { type: b }]]) } });
    members('RSPrimary', 'RSSecondary');
    members('Unknown', 'RSSecondary');
    expect(mongoUnreachable(Date.now() + LOST_GRACE_MS + 10)).toBe(false);
    members('Unknown', 'Unknown');
    expect(mongoUnreachable(Date.now() + LOST_GRACE_MS + 10)).toBe(true);
  });
});

describe('countReturns', () => {
  it('counts each time the servers come back after all were lost; the first connection and a member lost beside a reachable one are not returns', () => {
    const client = new EventEmitter();
    const returns = countReturns(client as unknown as MongoClient);
    const members = (...types: string[]) =>
      client.emit('topologyDescriptionChanged', { newDescription: { servers: new Map(types.map((type, i) => [`m${i}:1`, { type }])) } });
    members('Unknown');
    members('Standalone');
    expect(returns.count).toBe(0);
    members('Unknown');
    members('Unknown');
    expect(returns.count).toBe(0);
    members('Standalone');
    expect(returns.count).toBe(1);
    members('RSPrimary', 'Unknown');
    expect(returns.count).toBe(1);
    members('Unknown', 'Unknown');
    members('Unknown', 'RSSecondary');
    expect(returns.count).toBe(2);
  });
});

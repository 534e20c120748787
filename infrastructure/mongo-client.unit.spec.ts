import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, HEARTBEAT_FREQUENCY_MS, mongoClientOptions, SERVER_SELECTION_TIMEOUT_MS, SOCKET_TIMEOUT_MS } from './mongo-client.ts';

describe('mongoClientOptions', () => {
  it('bounds server selection and silent sockets by default', () => {
    expect(mongoClientOptions('mongodb://127.0.0.1:27017/animal_data')).toEqual({
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
      socketTimeoutMS: SOCKET_TIMEOUT_MS,
      heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
    });
  });

  it('leaves an option the URL sets to the URL', () => {
    expect(mongoClientOptions('mongodb://a:1,b:2/db?replicaSet=rs0&socketTimeoutMS=5000')).toEqual({
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
      heartbeatFrequencyMS: HEARTBEAT_FREQUENCY_MS,
    });
    expect(mongoClientOptions('mongodb://h/db?serverSelectionTimeoutMS=500&sockettimeoutms=1&connectTimeoutMS=2&heartbeatFrequencyMS=9000')).toEqual({});
  });
});

describe('mongoClient command counts (MONGO_MONITOR_COMMANDS)', () => {
  it('counts the commands a client starts by name and collection, only when asked to', async () => {
    const { mongoClient } = await import('./mongo-client.ts');
    const { mongoCommandCounts } = await import('./mongo-commands.ts');
    const started = (client: ReturnType<typeof mongoClient>, commandName: string, command: Record<string, unknown>) =>
      client.emit('commandStarted', { commandName, command } as never);
    const before = (key: string) => mongoCommandCounts.get(key)?.count ?? 0;

    const previous = process.env.MONGO_MONITOR_COMMANDS;
    try {
      process.env.MONGO_MONITOR_COMMANDS = 'true';
      const monitored = mongoClient('mongodb://127.0.0.1:1/count_test');
      const finds = before('find votes');
      const getMores = before('getMore votes');
      started(monitored, 'find', { find: 'votes', filter: {} });
      started(monitored, 'find', { find: 'votes', filter: {} });
      started(monitored, 'getMore', { getMore: 1n, collection: 'votes' });
      started(monitored, 'ping', { ping: 1 });
      expect(before('find votes')).toBe(finds + 2);
      expect(before('getMore votes')).toBe(getMores + 1);
      expect(mongoCommandCounts.get('ping ')).toMatchObject({ command: 'ping', collection: '' });

      delete process.env.MONGO_MONITOR_COMMANDS;
      const plain = mongoClient('mongodb://127.0.0.1:1/count_test');
      started(plain, 'find', { find: 'votes' });
      expect(before('find votes')).toBe(finds + 2);
    } finally {
      if (previous === undefined) delete process.env.MONGO_MONITOR_COMMANDS;
      else process.env.MONGO_MONITOR_COMMANDS = previous;
    }
  });
});

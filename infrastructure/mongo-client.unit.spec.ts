import { describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_MS, mongoClientOptions, SERVER_SELECTION_TIMEOUT_MS, SOCKET_TIMEOUT_MS } from './mongo-client.ts';

describe('mongoClientOptions', () => {
  it('bounds server selection and silent sockets by default', () => {
    expect(mongoClientOptions('mongodb://127.0.0.1:27017/animal_data')).toEqual({
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
      socketTimeoutMS: SOCKET_TIMEOUT_MS,
    });
  });

  it('leaves an option the URL sets to the URL', () => {
    expect(mongoClientOptions('mongodb://a:1,b:2/db?replicaSet=rs0&socketTimeoutMS=5000')).toEqual({
      serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
    });
    expect(mongoClientOptions('mongodb://h/db?serverSelectionTimeoutMS=500&sockettimeoutms=1&connectTimeoutMS=2')).toEqual({});
  });
});

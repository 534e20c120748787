import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { readStoreContract } from './read-store.contract.ts';
import { mongoReadStore } from './mongo.ts';

/** Runs when MONGO_URL points at MongoDB or a Mongo-wire server (CI starts FerretDB). */
const url = process.env.MONGO_URL;
describe.skipIf(!url)('MongoDB read store', () => {
  readStoreContract('MongoDB', async () => mongoReadStore(url as string, { dbName: `contract_${randomUUID().slice(0, 8)}` }));
});

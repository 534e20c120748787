import { randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import { writePositionsContract } from './write-positions.contract.ts';
import { mongoWritePositions } from './mongo-write-positions.ts';

/** Runs when MONGO_URL points at MongoDB or a Mongo-wire server (CI starts FerretDB). */
const url = process.env.MONGO_URL;
describe.skipIf(!url)('MongoDB write positions', () => {
  writePositionsContract('MongoDB', async () => mongoWritePositions(url as string, `contract_${randomUUID().slice(0, 8)}`));
});

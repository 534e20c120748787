import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { writePositionsContract } from './write-positions.contract.ts';
import { mongoWritePositions } from './mongo-write-positions.ts';

/** Runs when MONGO_URL points at MongoDB or a Mongo-wire server (CI starts FerretDB). */
const url = process.env.MONGO_URL;
describe.skipIf(!url)('MongoDB write positions', () => {
  writePositionsContract('MongoDB', async () => mongoWritePositions(url as string, `contract_${randomUUID().slice(0, 8)}`));

  it("shows a leased write to another process's leased reads once the write is answered", async () => {
    const db = `lease_${randomUUID().slice(0, 8)}`;
    const [reader, writer] = await Promise.all([mongoWritePositions(url as string, db), mongoWritePositions(url as string, db)]);
    try {
      // The reader's lookup is fresh for the next 250 ms: without the writer waiting it out, the reads below would miss both writes.
      expect(await reader.leasedPositions('acc')).toEqual({ lastWrite: null, lastAccountChange: null });
      await writer.recordAccountChange('acc', 5n);
      expect((await reader.leasedPositions('acc')).lastAccountChange).toBe(5n);
      await writer.record('acc', 7n, 'public-images');
      expect((await reader.leasedPositions('acc')).byKind?.['public-images']).toBe(7n);
      // Not leased: answered at once, so only a fresh lookup is sure to see it.
      await writer.record('acc', 8n, 'votes');
      expect((await reader.positions('acc')).byKind?.votes).toBe(8n);
    } finally {
      await Promise.all([reader.close(), writer.close()]);
    }
  });
});

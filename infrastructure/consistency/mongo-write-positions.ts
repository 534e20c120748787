import { Long, MongoClient } from 'mongodb';
import type { WritePositions } from './write-positions.ts';

/**
 * Write positions shared by separate command-api and query-api processes (and their replicas):
 * one document per account holding the highest position it wrote ($max, so replicas never move
 * it backwards).
 */
export const mongoWritePositions = async (url: string, dbName?: string): Promise<WritePositions & { close: () => Promise<void> }> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const positions = client.db(dbName ?? (new URL(url).pathname.slice(1) || 'animal_data')).collection<{ _id: string; position: Long }>('_write_positions');
  return {
    async record(accountId, position) {
      await positions.updateOne({ _id: accountId }, { $max: { position: Long.fromBigInt(position) } }, { upsert: true });
    },
    async lastWrite(accountId) {
      const doc = await positions.findOne({ _id: accountId });
      return doc ? BigInt(doc.position.toString()) : null;
    },
    close: () => client.close(),
  };
};

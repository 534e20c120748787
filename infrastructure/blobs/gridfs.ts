import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket } from 'mongodb';
import { mongoClient } from '../mongo-client.ts';
import { isValidBlobKey, type BlobStore } from './port.ts';

/**
 * Blobs in MongoDB GridFS (bucket `blobs`), the file name being the key. A put writes a new file
 * and then removes older files of the same name, so readers never see a partial blob.
 */
export const gridFsBlobStore = async (url: string, dbName?: string): Promise<BlobStore> => {
  const client = mongoClient(url);
  await client.connect();
  const db = client.db(dbName ?? (new URL(url).pathname.slice(1) || 'animal_data'));
  // Journaled: an upload is acknowledged to its client once its bytes are stored, and a standalone
  // mongod acknowledges an unjournaled write up to ≈ 100 ms before it reaches the disk — a crash in
  // between would keep the image's event and lose its bytes (the image would then stay
  // to_be_reviewed: docs/reliability.md).
  const bucket = new GridFSBucket(db, { bucketName: 'blobs', writeConcern: { w: 1, journal: true } });
  // The bucket's indexes (the ones the driver would make on the first upload), made once here at
  // start rather than by the driver under the first concurrent uploads: mongo-java-server answers
  // an insert that races an index creation on the same collection with "Unknown error"
  // (a ConcurrentModificationException in its index list), which reached a client as a 500.
  await db.collection('blobs.files').createIndex({ filename: 1, uploadDate: 1 });
  await db.collection('blobs.chunks').createIndex({ files_id: 1, n: 1 }, { unique: true });
  const newest = async (key: string) => (await bucket.find({ filename: key }).sort({ uploadDate: -1, _id: -1 }).limit(1).toArray())[0];
  const check = (key: string) => {
    if (!isValidBlobKey(key)) throw new Error(`invalid blob key '${key}'`);
  };
  return {
    async put(key, data, contentType) {
      check(key);
      const upload = bucket.openUploadStream(key, { metadata: { contentType } });
      await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, upload);
      const older = await bucket.find({ filename: key, _id: { $ne: upload.id } }).toArray();
      for (const file of older) await bucket.delete(file._id).catch(() => undefined);
      return { size: upload.length };
    },
    async get(key) {
      check(key);
      const file = await newest(key);
      if (!file) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of bucket.openDownloadStream(file._id)) chunks.push(chunk as Buffer);
      return { data: Buffer.concat(chunks), contentType: String(file.metadata?.contentType ?? 'application/octet-stream') };
    },
    async stream(key) {
      check(key);
      const file = await newest(key);
      if (!file) return null;
      return { stream: bucket.openDownloadStream(file._id), contentType: String(file.metadata?.contentType ?? 'application/octet-stream'), size: file.length };
    },
    async delete(key) {
      check(key);
      const files = await bucket.find({ filename: key }).toArray();
      for (const file of files) await bucket.delete(file._id).catch(() => undefined);
      return files.length > 0;
    },
    async close() {
      await client.close();
    },
  };
};

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { blobStoreContract } from './blob-store.contract.ts';
import { fileBlobStore } from './file.ts';
import { gridFsBlobStore } from './gridfs.ts';

const dir = mkdtempSync(join(tmpdir(), 'blobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

blobStoreContract('files under DATA_DIR', async () => fileBlobStore(join(dir, randomUUID())));

const url = process.env.MONGO_URL;
describe.skipIf(!url)('GridFS blobs', () => {
  blobStoreContract('MongoDB GridFS', async () => gridFsBlobStore(url as string, `blobs_${randomUUID().slice(0, 8)}`));
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreContract } from './blob-store.contract.ts';
import { fileBlobStore } from './file.ts';
import { gridFsBlobStore } from './gridfs.ts';

const dir = mkdtempSync(join(tmpdir(), 'blobs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

blobStoreContract('files under DATA_DIR', async () => fileBlobStore(join(dir, randomUUID())));

describe('files under DATA_DIR', () => {
  it('makes its directory again should it be removed while the store is open', async () => {
    const root = join(dir, randomUUID());
    const store = fileBlobStore(root);
    expect(await store.put('a', Buffer.from('one'), 'text/plain')).toEqual({ size: 3 });
    rmSync(root, { recursive: true, force: true });
    expect(await store.put('b', Buffer.from('two!'), 'text/plain')).toEqual({ size: 4 });
    expect((await store.get('b'))?.data.toString()).toBe('two!');
  });
});

const url = process.env.MONGO_URL;
describe.skipIf(!url)('GridFS blobs', () => {
  blobStoreContract('MongoDB GridFS', async () => gridFsBlobStore(url as string, `blobs_${randomUUID().slice(0, 8)}`));
});

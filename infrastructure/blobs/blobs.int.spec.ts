import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { blobStoreContract } from './blob-store.contract.ts';
import { fileBlobStore, SYNC_WRITE_MAX_BYTES } from './file.ts';
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
    // a blob too large to be written on the event loop, the same way
    rmSync(root, { recursive: true, force: true });
    const large = Buffer.alloc(SYNC_WRITE_MAX_BYTES + 1, 7);
    expect(await store.put('c', large, 'image/png')).toEqual({ size: large.length });
    expect((await store.get('c'))?.data.equals(large)).toBe(true);
  });

  it('writes small blobs at once and large ones in the thread pool, the same bytes, and leaves no temporary file when a write fails', async () => {
    const root = join(dir, randomUUID());
    const store = fileBlobStore(root);
    const small = Buffer.alloc(SYNC_WRITE_MAX_BYTES, 1);
    const large = Buffer.alloc(SYNC_WRITE_MAX_BYTES + 1, 2);
    await Promise.all([store.put('small', small, 'image/jpeg'), store.put('large', large, 'image/gif')]);
    expect(await store.get('small')).toEqual({ data: small, contentType: 'image/jpeg' });
    expect(await store.get('large')).toEqual({ data: large, contentType: 'image/gif' });
    // a key whose place is taken by a directory: the rename fails, for both sizes
    mkdirSync(join(root, 'taken'));
    mkdirSync(join(root, 'taken-too'));
    await expect(store.put('taken', small, 'image/jpeg')).rejects.toThrow();
    await expect(store.put('taken-too', large, 'image/jpeg')).rejects.toThrow();
    expect(readdirSync(root).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

const url = process.env.MONGO_URL;
describe.skipIf(!url)('GridFS blobs', () => {
  blobStoreContract('MongoDB GridFS', async () => gridFsBlobStore(url as string, `blobs_${randomUUID().slice(0, 8)}`));
});

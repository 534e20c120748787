import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './read-store.contract.ts';
import { embeddedReadStore } from './embedded.ts';

const dir = mkdtempSync(join(tmpdir(), 'rs-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

readStoreContract('embedded (persisted)', async () => embeddedReadStore(join(dir, `${randomUUID()}.db`)));
readStoreContract('embedded (memory only)', async () => embeddedReadStore());

describe('embedded read store persistence', () => {
  it('persists documents, tombstones and checkpoints across a reopen', async () => {
    const file = join(dir, 'reopen.db');
    const first = embeddedReadStore(file);
    const things = first.collection('things');
    await things.upsert({ _id: '1', n: 1 }, 1n);
    await things.upsert({ _id: '2', n: 2 }, 2n);
    await things.delete('2', 3n);
    await first.setCheckpoint('things', 3n);
    await first.close();

    const second = embeddedReadStore(file);
    expect(await second.getCheckpoint('things')).toBe(3n);
    expect(await second.collection('things').find()).toEqual([{ _id: '1', n: 1 }]);
    expect(await second.collection('things').upsert({ _id: '2', n: 2 }, 2n)).toBe(false);
    await second.close();
  });
});

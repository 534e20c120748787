import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
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

  it('counts a checkpoint at once in the writer and writes it to the file soon after, with its documents, in one transaction', async () => {
    const file = join(dir, 'flush.db');
    const store = embeddedReadStore(file);
    await store.collection('things').upsert({ _id: '1', n: 1 }, 5n);
    await store.setCheckpoint('things', 5n);
    expect(await store.getCheckpoint('things')).toBe(5n);
    expect(await store.waitForCheckpoints(['things'], 5n, 0)).toBe(true);
    const onDisk = () => {
      const inspect = new Database(file, { readonly: true });
      const checkpoint = inspect.prepare("SELECT position FROM checkpoints WHERE name = 'things'").get() as { position: number } | undefined;
      const documents = (inspect.prepare("SELECT count(*) AS n FROM documents WHERE collection = 'things'").get() as { n: number }).n;
      inspect.close();
      return { checkpoint: checkpoint?.position ?? null, documents };
    };
    await expect.poll(onDisk, { timeout: 2_000, interval: 10 }).toEqual({ checkpoint: 5, documents: 1 });
    await store.close();
  });
});

describe('embedded read store opening its collections', () => {
  it("reads a collection's documents on its first use, not when it is opened", async () => {
    const file = join(dir, 'lazy.db');
    const seed = embeddedReadStore(file);
    await seed.collection('votes').upsert({ _id: 'v1', account_id: 'a' }, 1n);
    await seed.close();

    // Opened with its index declared (as a projection's setup does), then written by another
    // process; this store follows the file only every hour.
    const store = embeddedReadStore(file, { followIntervalMs: 3_600_000 });
    await store.collection('votes').createIndex('account_id');
    await store.collection('seen').createIndex('account_id');
    await store.collection('seen').upsert({ _id: 's1', account_id: 'a' }, 1n);
    const other = embeddedReadStore(file);
    await other.collection('votes').upsert({ _id: 'v2', account_id: 'a' }, 2n);
    await other.collection('seen').upsert({ _id: 's2', account_id: 'a' }, 2n);
    await other.close();

    // Unread until now: what the file holds at its first use, through the declared index.
    expect((await store.collection('votes').find({ account_id: 'a' })).map((doc) => doc._id).sort()).toEqual(['v1', 'v2']);
    // Already read (and not yet followed): what it held.
    expect((await store.collection('seen').find({ account_id: 'a' })).map((doc) => doc._id)).toEqual(['s1']);
    await store.close();
  });
});

describe('embedded read store read by a second process', () => {
  it('follows the writer: new documents, changes, deletes and checkpoints appear in the reader, and waits end', async () => {
    const file = join(dir, 'follow.db');
    const writer = embeddedReadStore(file);
    const reader = embeddedReadStore(file, { followIntervalMs: 20 });
    const hooks = writer.collection('webhooks');
    await hooks.upsert({ _id: 'w1', account_id: 'a', status: 'enabled' }, 1n);
    await writer.setCheckpoint('webhooks', 1n);
    // The reader sees the checkpoint once the writer's file has it, then opens its collection (as
    // the dispatcher does on its first batch, after waiting for the endpoints projection).
    expect(await reader.waitForCheckpoints(['webhooks'], 1n, 5_000)).toBe(true);
    await reader.collection('webhooks').createIndex('account_id');
    expect(await reader.collection('webhooks').find({ account_id: 'a' })).toHaveLength(1);

    // Written after the reader has loaded everything: a new endpoint, a change, a delete.
    const waiting = reader.waitForCheckpoints(['webhooks'], 4n, 5_000);
    await hooks.upsert({ _id: 'w2', account_id: 'a', status: 'enabled' }, 2n);
    await hooks.upsert({ _id: 'w1', account_id: 'a', status: 'disabled' }, 3n);
    await writer.setCheckpoint('webhooks', 3n);
    await hooks.upsert({ _id: 'w3', account_id: 'b', status: 'enabled' }, 4n);
    await hooks.delete('w2', 4n);
    await writer.setCheckpoint('webhooks', 4n);
    expect(await waiting).toBe(true);
    expect(await reader.getCheckpoint('webhooks')).toBe(4n);
    expect(await reader.collection('webhooks').find({ account_id: 'a' })).toEqual([{ _id: 'w1', account_id: 'a', status: 'disabled' }]);
    expect(await reader.collection('webhooks').find({ status: 'enabled' })).toEqual([{ _id: 'w3', account_id: 'b', status: 'enabled' }]);
    await reader.close();
    await writer.close();
  });
});

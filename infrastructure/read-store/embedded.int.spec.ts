import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Database } from '../sqlite.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './read-store.contract.ts';
import { embeddedReadStore } from './embedded.ts';

const dir = mkdtempSync(join(tmpdir(), 'rs-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

readStoreContract('embedded (persisted)', async () => embeddedReadStore(join(dir, `${randomUUID()}.db`)));
readStoreContract('embedded (memory only)', async () => embeddedReadStore());
readStoreContract('embedded (persisted, 2 documents of a collection in memory)', async () =>
  embeddedReadStore(join(dir, `${randomUUID()}.db`), { maxResidentDocs: 2 }),
);

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

describe('embedded read store beyond its memory bound', () => {
  const residentOf = (collection: unknown) => (collection as { residentCount: number }).residentCount;

  it('keeps at most maxResidentDocs documents of a collection in memory and answers every query from memory and the file', async () => {
    const file = join(dir, 'bounded.db');
    const store = embeddedReadStore(file, { maxResidentDocs: 3 });
    const deliveries = store.collection('deliveries');
    await deliveries.createIndex('webhook_id');
    await deliveries.createIndex('status');
    for (let i = 0; i < 20; i++) {
      const created_at = `2026-11-26T10:00:${String(i).padStart(2, '0')}.000Z`;
      await deliveries.upsert({ _id: `d${i}`, webhook_id: i % 2 ? 'w2' : 'w1', status: i % 5 ? 'succeeded' : 'pending', created_at, payload: { n: i } }, BigInt(i + 1));
    }
    await store.setCheckpoint('deliveries', 20n);
    // The file gets the writes within 50 ms; the oldest documents then leave memory.
    await expect.poll(() => residentOf(deliveries), { timeout: 5_000 }).toBe(3);

    expect(await deliveries.get('d0')).toEqual({ _id: 'd0', webhook_id: 'w1', status: 'pending', created_at: '2026-11-26T10:00:00.000Z', payload: { n: 0 } });
    expect([...(await deliveries.getMany(['d1', 'd19', 'missing'])).keys()].sort()).toEqual(['d1', 'd19']);
    expect((await deliveries.find({ webhook_id: 'w1' }, { sort: { created_at: -1 }, limit: 3 })).map((doc) => doc._id)).toEqual(['d18', 'd16', 'd14']);
    expect((await deliveries.find({ status: 'pending' }, { sort: { created_at: 1 } })).map((doc) => doc._id)).toEqual(['d0', 'd5', 'd10', 'd15']);
    expect((await deliveries.find({ 'payload.n': { $gte: 17 } }, { sort: { created_at: 1 } })).map((doc) => doc._id)).toEqual(['d17', 'd18', 'd19']);
    expect(await deliveries.count()).toBe(20);
    expect(await deliveries.count({ webhook_id: 'w2' })).toBe(10);

    // A document held by the file only is changed and deleted like any other: its old index keys go.
    expect(await deliveries.upsert({ _id: 'd0', webhook_id: 'w1', status: 'succeeded', created_at: '2026-11-26T10:00:00.000Z', payload: { n: 0 } }, 21n)).toBe(true);
    expect(await deliveries.upsert({ _id: 'd5', webhook_id: 'w2', status: 'failed', created_at: 'x', payload: { n: 5 } }, 3n)).toBe(false);
    expect(await deliveries.delete('d10', 22n)).toBe(true);
    expect((await deliveries.find({ status: 'pending' })).map((doc) => doc._id).sort()).toEqual(['d15', 'd5']);
    expect(await deliveries.get('d10')).toBeNull();
    expect(await deliveries.count()).toBe(19);
    await store.setCheckpoint('deliveries', 22n);
    await expect.poll(() => residentOf(deliveries), { timeout: 5_000 }).toBeLessThanOrEqual(3);
    await store.close();

    // Reopened: its first use reads the file within the same bound.
    const reopened = embeddedReadStore(file, { maxResidentDocs: 3 });
    const again = reopened.collection('deliveries');
    await again.createIndex('status');
    expect((await again.find({ status: 'pending' })).map((doc) => doc._id).sort()).toEqual(['d15', 'd5']);
    expect(residentOf(again)).toBe(3);
    expect((await again.get('d0'))?.status).toBe('succeeded');
    expect(await again.count()).toBe(19);
    await reopened.close();
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

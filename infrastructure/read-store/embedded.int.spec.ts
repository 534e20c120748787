import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Database } from '../sqlite.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { readStoreContract } from './read-store.contract.ts';
import { embeddedReadStore } from './embedded.ts';
import { matches } from './filter.ts';
import type { Doc, Filter, WriteOp } from './port.ts';

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
      const documents = (inspect.prepare('SELECT count(*) AS n FROM "rs:things"').get() as { n: number }).n;
      inspect.close();
      return { checkpoint: checkpoint?.position ?? null, documents };
    };
    await expect.poll(onDisk, { timeout: 2_000, interval: 10 }).toEqual({ checkpoint: 5, documents: 1 });
    await store.close();
  });
});

describe('embedded read store opening its collections', () => {
  it('answers from the file what another store on it committed', async () => {
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
    // Two stores on one file in one process: the second writes once the first has committed (50 ms).
    await delay(200);
    const other = embeddedReadStore(file);
    await other.collection('votes').upsert({ _id: 'v2', account_id: 'a' }, 2n);
    await other.collection('seen').upsert({ _id: 's2', account_id: 'a' }, 2n);
    await other.close();

    // Every query reads the file as it is (the documents are not held in memory).
    expect((await store.collection('votes').find({ account_id: 'a' })).map((doc) => doc._id).sort()).toEqual(['v1', 'v2']);
    expect((await store.collection('seen').find({ account_id: 'a' })).map((doc) => doc._id).sort()).toEqual(['s1', 's2']);
    await store.close();
  });
});

describe('embedded read store on SQLite indexes', () => {
  it('answers list queries from a declared compound index, in its order, without sorting in memory', async () => {
    const file = join(dir, 'indexed.db');
    const store = embeddedReadStore(file);
    const deliveries = store.collection('deliveries');
    await deliveries.createIndex({ webhook_id: 1, created_at: 1, _id: 1 });
    await deliveries.createIndex({ webhook_id: 1, status: 1, created_at: 1, _id: 1 });
    await deliveries.bulkWrite(
      Array.from({ length: 20 }, (_, i) => ({
        type: 'upsert' as const,
        doc: { _id: `d${String(i).padStart(2, '0')}`, webhook_id: i % 2 ? 'w2' : 'w1', status: i % 5 ? 'succeeded' : 'pending', created_at: `2026-11-26T10:00:${String(i).padStart(2, '0')}.000Z`, payload: { n: i } },
        position: BigInt(i + 1),
      })),
    );
    const page = { sort: { created_at: -1, _id: -1 } as const, limit: 3 };
    expect((await deliveries.find({ webhook_id: 'w1' }, page)).map((doc) => doc._id)).toEqual(['d18', 'd16', 'd14']);
    expect((await deliveries.find({ webhook_id: 'w1', status: 'pending' }, page)).map((doc) => doc._id)).toEqual(['d10', 'd00']);
    for (const filter of [{ webhook_id: 'w1' }, { webhook_id: 'w1', status: 'pending' }]) {
      const plan = await deliveries.explain!(filter, page);
      expect(plan, plan.detail).toMatchObject({ scans: false, sortsInMemory: false });
    }
    // A filter on a field no index knows scans, and a sort no index gives is done in memory: the plan says so.
    expect((await deliveries.explain!({ 'payload.n': { $gte: 17 } }, { sort: { created_at: 1 } })).scans).toBe(true);
    expect((await deliveries.explain!({ webhook_id: 'w1' }, { sort: { 'payload.n': 1 } })).sortsInMemory).toBe(true);
    expect((await deliveries.find({ 'payload.n': { $gte: 17 } }, { sort: { created_at: 1 } })).map((doc) => doc._id)).toEqual(['d17', 'd18', 'd19']);
    await store.close();

    // Reopened: the indexes are in the file, and a dropped collection gets them back on its next use.
    const reopened = embeddedReadStore(file);
    const again = reopened.collection('deliveries');
    expect(await again.count({ webhook_id: 'w2' })).toBe(10);
    await reopened.drop(['deliveries'], []);
    await again.upsert({ _id: 'x', webhook_id: 'w1', status: 'pending', created_at: '2026-11-27T00:00:00.000Z' }, 1n);
    expect((await again.explain!({ webhook_id: 'w1' }, page)).scans).toBe(false);
    await reopened.close();
  });

  it('serves a query by the index matching most of its equalities, whatever SQLite would guess without statistics', async () => {
    const store = embeddedReadStore(join(dir, 'chosen.db'));
    const images = store.collection('images');
    // Declared as the images projection does: by the public flag first, then by account.
    await images.createIndex({ public: 1, id: 1, _id: 1 });
    await images.createIndex({ account_id: 1, id: 1, _id: 1 });
    await images.createIndex({ account_id: 1, public: 1, _id: 1 });
    await images.createIndex('breed_ids');
    await images.bulkWrite(
      Array.from({ length: 2_000 }, (_, i) => ({
        type: 'upsert' as const,
        doc: { _id: `i${i}`, id: `i${i}`, account_id: `a${i % 100}`, public: false, breed_ids: [] },
        position: BigInt(i + 1),
      })),
    );
    // One account's private images: from {account_id, public}, not by walking every private image.
    const own = { $and: [{ account_id: 'a7', public: false }, { breed_ids: [] }] };
    const plan = await images.explain!(own);
    expect(plan.detail).toContain('USING INDEX rs:images:account_id,public,_id (<expr>=? AND <expr>=?)');
    expect(await images.count(own)).toBe(20);
    expect((await images.sample(own, 3)).every((doc) => doc.account_id === 'a7')).toBe(true);
    // A page sorted by id comes from the index that gives the order.
    const page = await images.explain!({ account_id: 'a7', public: false }, { sort: { id: -1, _id: -1 }, limit: 5 });
    expect(page.detail).toContain('rs:images:account_id,id,_id');
    expect(page.sortsInMemory).toBe(false);
    expect((await images.find({ account_id: 'a7', public: false }, { sort: { id: -1, _id: -1 }, limit: 2 })).map((doc) => doc._id)).toEqual(['i907', 'i807']);
    await store.close();
  });

  it('reads the newest match per group, one document each, from the index', async () => {
    const store = embeddedReadStore(join(dir, 'latest.db'));
    const votes = store.collection<{ _id: string; id: number; account_id: string; image_id: string; value: number }>('votes');
    await votes.createIndex({ account_id: 1, id: 1, _id: 1 });
    await votes.createIndex({ account_id: 1, image_id: 1, id: 1, _id: 1 });
    await votes.bulkWrite(
      Array.from({ length: 300 }, (_, i) => ({
        type: 'upsert' as const,
        doc: { _id: `v${i}`, id: i, account_id: i % 2 ? 'a' : 'b', image_id: `img${i % 10}`, value: i },
        position: BigInt(i + 1),
      })),
    );
    const filter = { account_id: 'a', image_id: { $in: ['img1', 'img3', 'img4'] } };
    const newest = await votes.latestPer!(filter, 'image_id', 'id');
    // a's votes are the odd ids: img1 and img3 hold them (img4 only b's), the newest being 291 and 293.
    expect(newest.map((doc) => [doc.image_id, doc.id]).sort()).toEqual([
      ['img1', 291],
      ['img3', 293],
    ]);
    // The same as keeping the highest of every match.
    const all = await votes.find(filter);
    expect(all).toHaveLength(60);
    await store.close();
  });

  it('treats a declared field that holds arrays element-wise, before and after it is declared', async () => {
    const store = embeddedReadStore(join(dir, `${randomUUID()}.db`));
    const images = store.collection('images');
    await images.upsert({ _id: 'a', breed_ids: ['abys', 'beng'], account_id: 'x' }, 1n);
    await images.createIndex('breed_ids');
    await images.createIndex('account_id');
    await images.upsert({ _id: 'b', breed_ids: ['beng'], account_id: 'x' }, 2n);
    await images.upsert({ _id: 'c', breed_ids: [], account_id: 'y' }, 3n);
    expect((await images.find({ breed_ids: 'beng' }, { sort: { _id: 1 } })).map((doc) => doc._id)).toEqual(['a', 'b']);
    expect((await images.find({ breed_ids: { $in: ['abys'] } })).map((doc) => doc._id)).toEqual(['a']);
    expect((await images.find({ breed_ids: [] })).map((doc) => doc._id)).toEqual(['c']);
    expect(await images.count({ breed_ids: { $ne: [] }, account_id: 'x' })).toBe(2);
    expect(await images.count({ breed_ids: { $nin: ['abys'] } })).toBe(2);
    await store.close();
  });

  it('moves a file written by the earlier store (one documents table) into its tables', async () => {
    const file = join(dir, 'legacy.db');
    const legacy = new Database(file);
    legacy.exec(`
      CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, body TEXT, PRIMARY KEY (collection, id));
      CREATE TABLE checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
      INSERT INTO documents VALUES ('votes', 'v1', 1, '{"_id":"v1","account_id":"a","id":1}');
      INSERT INTO documents VALUES ('votes', 'v2', 3, NULL);
      INSERT INTO documents VALUES ('webhooks', 'w1', 2, '{"_id":"w1","account_id":"a"}');
      INSERT INTO checkpoints VALUES ('votes', 3);
    `);
    legacy.close();
    const store = embeddedReadStore(file);
    expect(await store.getCheckpoint('votes')).toBe(3n);
    expect(await store.collection('votes').find({ account_id: 'a' })).toEqual([{ _id: 'v1', account_id: 'a', id: 1 }]);
    expect(await store.collection('votes').upsert({ _id: 'v2', account_id: 'a', id: 2 }, 2n)).toBe(false);
    expect(await store.collection('webhooks').get('w1')).toEqual({ _id: 'w1', account_id: 'a' });
    await store.close();
  });
});

describe('embedded read store read by a second process', () => {
  it('follows the writer: new documents, changes, deletes and checkpoints appear in the reader, and waits end', async () => {
    const file = join(dir, 'follow.db');
    const writer = embeddedReadStore(file);
    const reader = embeddedReadStore(file, { followIntervalMs: 20 });
    const hooks = writer.collection('webhooks');
    await hooks.createIndex('account_id');
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

describe('embedded read store counts', () => {
  it('keeps the counts it made right through upserts, moves between accounts, deletes, stale writes and bulk writes', async () => {
    const store = embeddedReadStore(join(dir, `${randomUUID()}.db`));
    const votes = store.collection('votes');
    await votes.createIndex({ account_id: 1, id: 1, _id: 1 });
    const mirror = new Map<string, { doc: Doc; position: bigint }>();
    const deleted = new Map<string, bigint>();
    let random = 7;
    const next = (n: number) => {
      random = (random * 1103515245 + 12345) % 2 ** 31;
      return random % n;
    };
    const filters: Filter[] = [
      { account_id: 'a1' },
      { account_id: 'a2', sub_id: 's1' },
      { $and: [{ account_id: 'a3' }, { value: { $gt: 0 } }] },
      { sub_id: { $in: ['s0', 's2'] } },
      {},
    ];
    const expected = (filter: Filter) => [...mirror.values()].filter(({ doc }) => matches(doc, filter)).length;
    let position = 1n;
    for (let round = 0; round < 12; round++) {
      for (const filter of filters) expect(await votes.count(filter), `${round} ${JSON.stringify(filter)}`).toBe(expected(filter));
      const ops: WriteOp[] = [];
      for (let i = 0; i < 60; i++) {
        const id = `v${next(80)}`;
        // Some writes come with an old position (a replay): the guard drops them, counts must not move.
        const at = next(10) === 0 ? 1n : (position += 1n);
        const seen = mirror.get(id)?.position ?? deleted.get(id) ?? 0n;
        if (next(5) === 0) {
          if (round % 2 === 0) await votes.delete(id, at);
          else ops.push({ type: 'delete', id, position: at });
          if (at > seen) {
            mirror.delete(id);
            deleted.set(id, at);
          }
        } else {
          const doc = { _id: id, id: Number(id.slice(1)), account_id: `a${next(4)}`, sub_id: `s${next(3)}`, value: next(3) - 1 };
          if (round % 2 === 0) await votes.upsert(doc, at);
          else ops.push({ type: 'upsert', doc, position: at });
          if (at > seen) {
            mirror.set(id, { doc, position: at });
            deleted.delete(id);
          }
        }
      }
      // At most one op per _id in a bulk write (as the port says): keep the last of each.
      const last = new Map<string, WriteOp>();
      for (const op of ops) last.set(op.type === 'upsert' ? op.doc._id : op.id, op);
      if (last.size !== ops.length) {
        // The mirror applied every op in order; replay the same order one by one instead.
        for (const op of ops) {
          if (op.type === 'upsert') await votes.upsert(op.doc, op.position);
          else await votes.delete(op.id, op.position);
        }
      } else {
        await votes.bulkWrite(ops);
      }
    }
    await store.close();
  });
});

describe('embedded read store: pages far past the end', () => {
  it('answers an offset beyond 64 bits (page=2^61 × limit) with an empty page, not an error', async () => {
    const store = embeddedReadStore();
    const docs = store.collection<{ _id: string; n: number }>('far_pages');
    await docs.createIndex({ n: 1 });
    await docs.upsert({ _id: 'a', n: 1 }, 1n);
    expect(await docs.find({}, { sort: { n: 1 }, skip: 2035680795930164736 * 8, limit: 8 })).toEqual([]);
    expect(await docs.find({ n: 1 }, { skip: 2035680795930164736 * 8, limit: 8 })).toEqual([]);
    await store.close();
  });
});

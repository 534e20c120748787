import { beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { inMemoryWritePositions, type WritePositions } from '../infrastructure/consistency/write-positions.ts';
import { recordAccountChange, recordImageWrite, recordWrite, untilKeyUsable, type CommandApiDeps } from './deps.ts';
import { blobKeysFor, type ImageState } from '../domain/images/image.ts';
import { uploadBudget } from '../http/upload-budget.ts';

/**
 * Write positions are recorded after the write is stored. With the shared positions (MongoDB) out
 * of reach the write must still be acknowledged — an error for an applied write invites a second
 * one (a second account, a second vote) — and the position is recorded once the store is back.
 */
let unreachable: Error;
beforeAll(async () => {
  // The real error of a MongoDB server nobody listens on (port 1 on loopback).
  const client = new MongoClient('mongodb://127.0.0.1:1/x', { serverSelectionTimeoutMS: 200, connectTimeoutMS: 200 });
  unreachable = await client.db().collection('c').findOne({}).then(
    () => new Error('unexpectedly reached'),
    (error: Error) => error,
  );
  await client.close();
});

/** Positions whose store is down until `up()`; records made meanwhile are lost, as on a dead server. */
const flakyPositions = () => {
  const inner = inMemoryWritePositions();
  let down = true;
  const positions: WritePositions = {
    ...inner,
    record: async (...args) => {
      if (down) throw unreachable;
      return inner.record(...args);
    },
    recordAccountChange: async (...args) => {
      if (down) throw unreachable;
      return inner.recordAccountChange(...args);
    },
  };
  return { positions, inner, up: () => (down = false) };
};

const depsWith = (writePositions: WritePositions, readStore?: CommandApiDeps['readStore']): CommandApiDeps => ({ eventStore: {} as never, writePositions, readStore, uploadMemory: uploadBudget(1024 * 1024) });


describe('recording write positions with the store out of reach', () => {
  it('a write is acknowledged, and its position recorded once the store is back', async () => {
    expect(unreachable.name).toBe('MongoServerSelectionError');
    const { positions, inner, up } = flakyPositions();
    const deps = depsWith(positions);
    await expect(recordWrite(deps, 'acc-1', 42n, 'votes')).resolves.toBeUndefined();
    await expect(recordAccountChange(deps, 'acc-2', 43n)).resolves.toBeUndefined();
    expect(await inner.lastWrite('acc-1')).toBeNull();
    up();
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && ((await inner.lastWrite('acc-1')) === null || (await inner.positions('acc-2')).lastAccountChange === null)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await inner.lastWrite('acc-1')).toBe(42n);
    expect(await inner.positions('acc-2')).toMatchObject({ lastAccountChange: 43n });
  });

  it('a key is issued even if the read side cannot confirm it in time', async () => {
    const readStore = { waitForCheckpoints: async () => Promise.reject(unreachable) } as unknown as CommandApiDeps['readStore'];
    await expect(untilKeyUsable(depsWith(inMemoryWritePositions(), readStore), 7n)).resolves.toBeUndefined();
  });

  it('any other failure still fails the request', async () => {
    const broken: WritePositions = { ...inMemoryWritePositions(), record: async () => Promise.reject(new TypeError('a bug')) };
    await expect(recordWrite(depsWith(broken), 'acc-1', 1n, 'votes')).rejects.toThrow('a bug');
  });
});

describe('recording image writes', () => {
  const image = (isPublic: boolean, deleted = false): ImageState => ({
    exists: true,
    imageId: 'img-1',
    accountId: 'acc-1',
    status: 'labelled',
    verdict: 'clean',
    publicWhenSafe: false,
    deleted,
    autoCrop: false,
    parentImageId: null,
    blobKeys: blobKeysFor('img-1'),
    breedIds: ['siam'],
    publicRequest: null,
    isPublic,
  });

  it('records a write on an image everybody sees as a public-images write too, one on a private image as images only', async () => {
    const positions = inMemoryWritePositions();
    const deps = depsWith(positions);
    await recordImageWrite(deps, 'acc-1', 5n, image(false));
    expect(await positions.positions('acc-1')).toEqual({ lastWrite: 5n, lastAccountChange: null, byKind: { images: 5n } });
    // Deleting a public image still changes what everybody sees (a breed's reference image).
    await recordImageWrite(deps, 'acc-1', 8n, image(true, true));
    expect(await positions.positions('acc-1')).toEqual({ lastWrite: 8n, lastAccountChange: null, byKind: { images: 8n, 'public-images': 8n } });
  });
});

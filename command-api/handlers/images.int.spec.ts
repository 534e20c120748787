import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { quotaStream } from '../../domain/quota/quota.ts';
import { fileBlobStore } from '../../infrastructure/blobs/file.ts';
import type { CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore, StreamAppend } from '../../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { uploadImage, type UploadInput } from './images.ts';

const context: CommandContext = { accountId: 'acc-1', requestId: 'req-1', actor: 'test' };

describe('uploadImage', () => {
  let dir: string;
  let store: EventStore;
  let input: UploadInput;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'upload-image-'));
    store = sqliteEventStore(join(dir, 'events.db'));
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();
    input = { bytes: png, original_filename: 'red.png', sub_id: null, breed_ids: [], age_months: null, auto_crop: false };
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reserves each upload on the account's quota stream from the cached state: only what came after it is read", async () => {
    const settings = { eventStore: store, blobs: fileBlobStore(join(dir, 'blobs')), uploadQuota: 10 };
    await uploadImage(settings, 'acc-1', input, context);
    const readStream = vi.spyOn(store, 'readStream');
    await uploadImage(settings, 'acc-1', input, context);
    await uploadImage(settings, 'acc-1', input, context);
    const quotaReads = readStream.mock.calls.filter(([name]) => name === quotaStream('acc-1'));
    expect(quotaReads).toEqual([
      [quotaStream('acc-1'), { fromRevision: 1n }],
      [quotaStream('acc-1'), { fromRevision: 2n }],
    ]);
    expect(await store.readStream(quotaStream('acc-1'))).toHaveLength(3);
  });

  const blobFiles = () => (existsSync(join(dir, 'blobs')) ? readdirSync(join(dir, 'blobs')).filter((name) => !name.endsWith('.type')) : []);
  const quotaEvents = async () => (await store.readStream(quotaStream('acc-1'))).map((event) => event.type);

  it('appends the reservation and the image together: one append to wait for', async () => {
    const settings = { eventStore: store, blobs: fileBlobStore(join(dir, 'blobs')), uploadQuota: 10 };
    const append = vi.spyOn(store, 'append');
    const appendAll = vi.spyOn(store, 'appendAll');
    const { data, position } = await uploadImage(settings, 'acc-1', input, context);
    expect(append).not.toHaveBeenCalled();
    expect(appendAll).toHaveBeenCalledTimes(1);
    expect(appendAll.mock.calls[0][0].map((part: StreamAppend) => [part.streamName, part.events.map((event) => event.type), part.expectedRevision])).toEqual([
      [quotaStream('acc-1'), ['UploadQuotaReserved'], 'no_stream'],
      [`image-${data.image_id}`, ['ImageUploaded'], 'no_stream'],
    ]);
    expect(position).not.toBeNull();
    // the next one at the revision the first left (from the cache)
    await uploadImage(settings, 'acc-1', input, context);
    expect(appendAll.mock.calls[1][0][0].expectedRevision).toBe(0n);
    expect(await quotaEvents()).toEqual(['UploadQuotaReserved', 'UploadQuotaReserved']);
  });

  it('stores nothing for an upload over its quota; of racing uploads at the last unit one is stored and the others leave no blob', async () => {
    const settings = { eventStore: store, blobs: fileBlobStore(join(dir, 'blobs')), uploadQuota: 1 };
    const results = await Promise.allSettled([1, 2, 3].map(() => uploadImage(settings, 'acc-1', input, context)));
    const stored = results.filter((result) => result.status === 'fulfilled');
    expect(stored).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toMatchObject({ code: 'upload_quota_exceeded' });
    const imageId = (stored[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof uploadImage>>>).value.data.image_id;
    expect(blobFiles().every((name) => name.startsWith(`img.${imageId}.`))).toBe(true);
    expect(blobFiles().length).toBeGreaterThan(0);
    await expect(uploadImage(settings, 'acc-1', input, context)).rejects.toMatchObject({ code: 'upload_quota_exceeded' });
    expect(blobFiles().every((name) => name.startsWith(`img.${imageId}.`))).toBe(true);
    expect(await quotaEvents()).toEqual(['UploadQuotaReserved']);
  });

  it('gives the unit back when the image could not be appended after its reservation stood (EventStoreDB appends one stream after the other), and removes the blobs', async () => {
    const settings = { eventStore: store, blobs: fileBlobStore(join(dir, 'blobs')), uploadQuota: 10 };
    const realAppendAll = store.appendAll.bind(store);
    vi.spyOn(store, 'appendAll').mockImplementationOnce(async (appends) => {
      await realAppendAll(appends.slice(0, 1));
      throw new Error('connection lost');
    });
    await expect(uploadImage(settings, 'acc-1', input, context)).rejects.toThrow('connection lost');
    expect(await quotaEvents()).toEqual(['UploadQuotaReserved', 'UploadQuotaReleased']);
    expect(blobFiles()).toEqual([]);
    // when nothing stood (the embedded store's all or none), nothing is given back
    vi.spyOn(store, 'appendAll').mockRejectedValueOnce(new Error('disk full'));
    await expect(uploadImage(settings, 'acc-1', input, context)).rejects.toThrow('disk full');
    expect(await quotaEvents()).toEqual(['UploadQuotaReserved', 'UploadQuotaReleased']);
    expect(blobFiles()).toEqual([]);
    // and the next upload reserves from the stream as it is
    await uploadImage(settings, 'acc-1', input, context);
    expect(await quotaEvents()).toEqual(['UploadQuotaReserved', 'UploadQuotaReleased', 'UploadQuotaReserved']);
  });

  it('removes what a half-done blob store left when one of the blobs fails, and reserves nothing', async () => {
    const files = fileBlobStore(join(dir, 'blobs'));
    // `med` fails at once (a full disk, say) while the original is still being written
    const failing = {
      ...files,
      put: async (key: string, data: Buffer, type: string) => {
        if (key.endsWith('.med')) throw new Error('ENOSPC: no space left on device');
        await new Promise((resolve) => setTimeout(resolve, 50));
        return files.put(key, data, type);
      },
    };
    const settings = { eventStore: store, blobs: failing, uploadQuota: 10 };
    await expect(uploadImage(settings, 'acc-1', input, context)).rejects.toThrow('ENOSPC');
    // (a write still under way when the failure was seen would land later: none may be)
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(blobFiles()).toEqual([]);
    expect(await quotaEvents()).toEqual([]);
  });

  it('writes a plain upload once (its full size is the original) and a cleaned one twice', async () => {
    const blobs = fileBlobStore(join(dir, 'blobs'));
    const settings = { eventStore: store, blobs, uploadQuota: 10 };
    const plain = (await uploadImage(settings, 'acc-1', input, context)).data;
    expect(plain.blob_keys.full).toBe(plain.blob_keys.original);
    expect((await blobs.get(plain.blob_keys.full))?.data.equals(input.bytes)).toBe(true);
    expect(await blobs.get(`img.${plain.image_id}.full`)).toBeNull();

    const withExif = await sharp(input.bytes).withExif({ IFD0: { Artist: 'someone' } }).jpeg().toBuffer();
    const cleaned = (await uploadImage(settings, 'acc-1', { ...input, bytes: withExif }, context)).data;
    expect(cleaned.blob_keys.full).toBe(`img.${cleaned.image_id}.full`);
    expect((await blobs.get(cleaned.blob_keys.original))?.data.equals(withExif)).toBe(true);
    expect((await sharp((await blobs.get(cleaned.blob_keys.full))!.data).metadata()).exif).toBeUndefined();
  });
});

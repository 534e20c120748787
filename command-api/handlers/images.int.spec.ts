import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { quotaStream } from '../../domain/quota/quota.ts';
import { fileBlobStore } from '../../infrastructure/blobs/file.ts';
import type { CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
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

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deleteImageDecider } from '../../domain/images/delete.ts';
import { imageStream } from '../../domain/images/image.ts';
import { fileBlobStore } from '../../infrastructure/blobs/file.ts';
import type { BlobStore } from '../../infrastructure/blobs/port.ts';
import { handleCommand, type CommandContext } from '../../infrastructure/event-store/command-handler.ts';
import type { EventStore } from '../../infrastructure/event-store/port.ts';
import { sqliteEventStore } from '../../infrastructure/event-store/sqlite.ts';
import { storedUpload } from '../../test/stored-upload.ts';
import type { ProcessorDeps } from '../processor.ts';
import { imageSizesProcessor } from './sizes.ts';

const context: CommandContext = { accountId: 'acc-1', requestId: 'req-1', actor: 'test' };
const logger = pino({ level: 'silent' });

describe('image-sizes processor', () => {
  let dir: string;
  let store: EventStore;
  let blobs: BlobStore;
  let deps: ProcessorDeps;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'image-sizes-'));
    store = sqliteEventStore(join(dir, 'events.db'));
    blobs = fileBlobStore(join(dir, 'blobs'));
    deps = { eventStore: store, blobs, logger };
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const upload = () => storedUpload(store, blobs, context);
  const widthOf = async (key: string) => {
    const blob = await blobs.get(key);
    return blob ? (await sharp(blob.data).metadata()).width : null;
  };

  it('makes small and thumb from med after the upload, and the same bytes again for an event seen twice', async () => {
    const { event, data } = await upload();
    expect([await widthOf(data.blob_keys.full), await widthOf(data.blob_keys.med)]).toEqual([1200, 640]);
    expect([await widthOf(data.blob_keys.small), await widthOf(data.blob_keys.thumb)]).toEqual([null, null]);

    await imageSizesProcessor.handle(event, deps);
    expect([await widthOf(data.blob_keys.small), await widthOf(data.blob_keys.thumb)]).toEqual([320, 150]);
    expect((await blobs.get(data.blob_keys.thumb))?.contentType).toBe('image/jpeg');
    const first = (await blobs.get(data.blob_keys.thumb))!.data;
    await imageSizesProcessor.handle(event, deps);
    expect((await blobs.get(data.blob_keys.thumb))!.data.equals(first)).toBe(true);
  });

  it('leaves no files for an image deleted while its sizes were made, and does nothing once its med is gone', async () => {
    const { event, data } = await upload();
    // Deleted, but its files not yet removed by the clean-up processor: the sizes are written, then taken back.
    await handleCommand(store, imageStream(data.image_id), deleteImageDecider, { type: 'DeleteImage', account_id: 'acc-1', now: new Date().toISOString() }, context);
    await imageSizesProcessor.handle(event, deps);
    expect([await widthOf(data.blob_keys.small), await widthOf(data.blob_keys.thumb)]).toEqual([null, null]);

    // The clean-up processor ran first: nothing to make from.
    await blobs.delete(data.blob_keys.med);
    await imageSizesProcessor.handle(event, deps);
    expect([await widthOf(data.blob_keys.small), await widthOf(data.blob_keys.thumb)]).toEqual([null, null]);
  });
});

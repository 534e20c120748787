import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
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
import { discardImageWithLostBytes } from './lost-bytes.ts';
import { imageValidationProcessor } from './validation.ts';

const context: CommandContext = { accountId: 'acc-1', requestId: 'req-1', actor: 'test' };

describe('an image whose stored bytes are gone though it was never deleted', () => {
  let dir: string;
  let store: EventStore;
  let blobs: BlobStore;
  let deps: ProcessorDeps;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lost-bytes-'));
    store = sqliteEventStore(join(dir, 'events.db'));
    blobs = fileBlobStore(join(dir, 'blobs'));
    // No vision service: the model must not be reached for an image without bytes.
    deps = { eventStore: store, blobs, logger: pino({ level: 'silent' }) };
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('validation deletes it in its owner\'s name (the processor as actor), instead of leaving it to_be_reviewed for ever', async () => {
    const { event, data } = await storedUpload(store, blobs, context);
    // The blob store came back without the bytes it had acknowledged.
    await blobs.delete(data.blob_keys.med);
    await blobs.delete(data.blob_keys.full);

    await imageValidationProcessor.handle(event, deps);
    const events = await store.readStream(imageStream(data.image_id));
    expect(events.map((recorded) => recorded.type)).toEqual(['ImageUploaded', 'ImageDeleted']);
    expect(events[1].data).toMatchObject({ image_id: data.image_id, account_id: 'acc-1' });
    expect(events[1].metadata).toMatchObject({ actor: 'system:image-validation', causation_id: event.id });

    // The event handed over again (at-least-once): nothing more.
    await imageValidationProcessor.handle(event, deps);
    expect(await store.readStream(imageStream(data.image_id))).toHaveLength(2);
  });

  it('an image its owner deleted meanwhile is left as it is', async () => {
    const { event, data } = await storedUpload(store, blobs, context);
    await handleCommand(store, imageStream(data.image_id), deleteImageDecider, { type: 'DeleteImage', account_id: 'acc-1', now: new Date().toISOString() }, context);
    await expect(discardImageWithLostBytes(deps, 'image-validation', event, data)).resolves.toBeUndefined();
    expect((await store.readStream(imageStream(data.image_id))).map((recorded) => recorded.type)).toEqual(['ImageUploaded', 'ImageDeleted']);
  });
});

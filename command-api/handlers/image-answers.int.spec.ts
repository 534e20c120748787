import { afterEach, describe, expect, it, vi } from 'vitest';
import { Collections, type ImageDoc } from '../../contracts/read-models.ts';
import { uploadedImageDoc } from '../../contracts/image-resource.ts';
import { uploadData } from '../../test/image-fixtures.ts';
import { inMemoryWritePositions, type WritePositions } from '../../infrastructure/consistency/write-positions.ts';
import { embeddedReadStore } from '../../infrastructure/read-store/embedded.ts';
import type { ReadStore } from '../../infrastructure/read-store/port.ts';
import { uploadBudget } from '../../http/upload-budget.ts';
import { imageAnswers } from './image-answers.ts';

/** An image as the images projection keeps it right after its upload. */
const imageDoc = (imageId: string, accountId: string, isPublic: boolean): ImageDoc => ({ ...uploadedImageDoc(uploadData(accountId, { image_id: imageId })), public: isPublic, random: 0.5 });

let readStore: ReadStore;
afterEach(async () => {
  await readStore.close();
});

/**
 * The image a vote or favourite embeds, on shared write positions (leased: authentication's
 * positions may predate the request, so the caller's own image writes need a lookup of their own).
 */
const setUp = async () => {
  readStore = embeddedReadStore();
  const memory = inMemoryWritePositions();
  const positions: WritePositions = { ...memory, leaseMs: 250 };
  const lookups = vi.spyOn(positions, 'positions');
  const answers = imageAnswers({ eventStore: {} as never, writePositions: positions, readStore, uploadMemory: uploadBudget(1024 * 1024), images: { publicBaseUrl: 'http://api.test' } as never });
  const request = { writePositions: null, headers: {} } as never;
  const images = readStore.collection<ImageDoc>(Collections.images);
  return { positions, lookups, answers, request, images };
};

describe('the image a vote or favourite embeds', () => {
  it("answers another account's public image as read, without looking up the caller's writes", async () => {
    const { positions, lookups, answers, request, images } = await setUp();
    await images.upsert(imageDoc('theirs', 'other', true), 1n);
    await readStore.setCheckpoint('images', 1n);
    // The caller uploaded something just now (not projected yet): it cannot change another account's image.
    await positions.record('caller', 9n, 'images');
    const image = await answers.embedded(request, 'theirs', { accountId: 'caller' });
    expect(image).toMatchObject({ id: 'theirs', url: expect.stringContaining('http://api.test/') });
    expect(lookups).not.toHaveBeenCalled();
  });

  it("waits for the caller's own image written just before, and answers it once projected", async () => {
    const { positions, lookups, answers, request, images } = await setUp();
    await readStore.setCheckpoint('images', 4n);
    await positions.record('caller', 5n, 'images');
    const answered = answers.embedded(request, 'mine', { accountId: 'caller' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await images.upsert(imageDoc('mine', 'caller', false), 5n);
    await readStore.setCheckpoint('images', 5n);
    expect(await answered).toMatchObject({ id: 'mine', url: expect.stringContaining('http://api.test/') });
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('answers an image nobody has as its id alone, at once when the caller has no image writes', async () => {
    const { lookups, answers, request } = await setUp();
    const wait = vi.spyOn(readStore, 'waitForCheckpoints');
    expect(await answers.embedded(request, 'nobody', { accountId: 'caller' })).toEqual({ id: 'nobody', url: null });
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(wait).not.toHaveBeenCalled();
  });
});

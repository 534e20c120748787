import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp, { type Sharp } from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.ts';
import { BYTES_PER_PIXEL } from '../../infrastructure/images/decode-cost.ts';
import { uploadBudget } from '../../http/upload-budget.ts';
import { checkPhoto } from './photo-check.ts';

const dir = mkdtempSync(join(tmpdir(), 'photo-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const saved = async (name: string, image: Sharp): Promise<{ path: string; size: number }> => {
  const bytes = await image.toBuffer();
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return { path, size: bytes.length };
};
const plain = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#468' } });

describe('checkPhoto (pet photos): decoding bounded like image uploads', () => {
  it('waits for what decoding costs by its header, and gives it back', async () => {
    const budget = uploadBudget(64 * 1024 * 1024);
    const asked: number[] = [];
    const memory = { acquire: (bytes: number) => (asked.push(bytes), budget.acquire(bytes)) };
    const progressive = await saved('progressive.jpg', plain(2000, 1000).jpeg({ progressive: true }));
    const gif = await saved('small.gif', plain(800, 600).gif());
    const baseline = await saved('baseline.jpg', plain(2000, 1000).jpeg());
    await checkPhoto(progressive.path, progressive.size, 'progressive', memory);
    await checkPhoto(gif.path, gif.size, 'gif', memory);
    await checkPhoto(baseline.path, baseline.size, 'baseline', memory);
    expect(asked).toEqual([2000 * 1000 * BYTES_PER_PIXEL.decodedWhole, 800 * 600 * BYTES_PER_PIXEL.reencodedWhole, 2000 * 1000 * BYTES_PER_PIXEL.streamed]);
    expect(budget.held()).toBe(0);
  });

  it('refuses a photo decoded whole past 4096 × 4096 before it asks for memory', async () => {
    const asked: number[] = [];
    const memory = { acquire: async (bytes: number) => (asked.push(bytes), () => undefined) };
    const interlaced = await saved('interlaced.png', plain(4100, 4100).png({ progressive: true }));
    const refusal = await checkPhoto(interlaced.path, interlaced.size, 'file 0', memory).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({ code: 'invalid_media' });
    expect((refusal as Error).message).toMatch(/4100×4100 is too large for a GIF, interlaced PNG or progressive JPEG/);
    expect(asked).toEqual([]);
  });
});

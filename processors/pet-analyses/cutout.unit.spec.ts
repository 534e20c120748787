import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { backgroundMask, cutOut, MAX_CUTOUT_SIDE, pixelBox } from './cutout.ts';

const PINK = { r: 200, g: 120, b: 160 };
const BLUE = { r: 0, g: 64, b: 255 };
const block = (rgb: typeof PINK, width: number, height: number) => sharp({ create: { width, height, channels: 3, background: rgb } }).png().toBuffer();

describe('cut-out mask', () => {
  it('background is what the border flood reaches: an enclosed patch of the background colour stays with the animal', async () => {
    // 100×80 pink; a blue 60×40 body at (20,20) with a pink 10×10 hole at (45,35) inside it.
    const image = await sharp({ create: { width: 100, height: 80, channels: 3, background: PINK } })
      .composite([
        { input: await block(BLUE, 60, 40), left: 20, top: 20 },
        { input: await block(PINK, 10, 10), left: 45, top: 35 },
      ])
      .raw()
      .toBuffer({ resolveWithObject: true });
    const mask = backgroundMask(image.data, 100, 80, image.info.channels);
    const at = (x: number, y: number) => mask[y * 100 + x];
    expect(at(2, 2)).toBe(1);
    expect(at(19, 40)).toBe(1);
    expect(at(20, 40)).toBe(0);
    expect(at(50, 40)).toBe(0); // the hole: background colour, not connected to the border
    let foreground = 0;
    for (const value of mask) if (!value) foreground++;
    expect(foreground).toBe(60 * 40);
  });

  it('cuts the box with an alpha mask; a box of one colour falls back to an ellipse', async () => {
    const photo = await sharp({ create: { width: 200, height: 100, channels: 3, background: PINK } })
      .composite([{ input: await block(BLUE, 50, 40), left: 100, top: 30 }])
      .png()
      .toBuffer();
    const cut = await cutOut(photo, { left: 0.5, top: 0.3, width: 0.25, height: 0.4 });
    expect(cut.method).toBe('border_background');
    expect(cut.box).toEqual(pixelBox({ left: 0.5, top: 0.3, width: 0.25, height: 0.4 }, 200, 100));
    const { data, info } = await sharp(cut.image).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect(alphaAt(0, 0)).toBe(0);
    expect(alphaAt(Math.floor(info.width / 2), Math.floor(info.height / 2))).toBe(255);
    expect(cut.foreground_share).toBeCloseTo((50 * 40) / (info.width * info.height), 5);

    // A large photo is cut at most MAX_CUTOUT_SIDE on its longest side (all the portrait can show), its box still in the photo's pixels.
    const large = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: PINK } })
      .composite([{ input: await block(BLUE, 1600, 1000), left: 1200, top: 1000 }])
      .jpeg()
      .toBuffer();
    const largeCut = await cutOut(large, { left: 0.25, top: 0.25, width: 0.5, height: 0.5 });
    expect(largeCut.box).toEqual(pixelBox({ left: 0.25, top: 0.25, width: 0.5, height: 0.5 }, 4000, 3000));
    expect(Math.max(largeCut.width, largeCut.height)).toBe(MAX_CUTOUT_SIDE);
    expect(largeCut.width / largeCut.height).toBeCloseTo(largeCut.box.width / largeCut.box.height, 2);
    expect(largeCut.method).toBe('border_background');
    expect(largeCut.foreground_share).toBeCloseTo((1600 * 1000) / (largeCut.box.width * largeCut.box.height), 1);

    const plain = await cutOut(await sharp({ create: { width: 100, height: 100, channels: 3, background: PINK } }).png().toBuffer(), { left: 0.2, top: 0.2, width: 0.5, height: 0.5 });
    expect(plain.method).toBe('ellipse');
  });
});

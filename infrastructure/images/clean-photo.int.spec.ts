import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.ts';
import { cleanPhoto, planClean } from './clean-photo.ts';
import { holdsMarkup, markupInMetadata, servableAsIs, textSegments } from './markup.ts';
import { polyglotReason } from './polyglot.ts';
import { processUpload } from './process-upload.ts';

const picture = (format: 'jpeg' | 'png' | 'webp', width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 140, b: 200 } } })[format]().toBuffer();

const HTML = '<body onload=alert(document.domain)>';

/** A JPEG with a COM segment and an APP15 segment right after SOI. */
const jpegWith = (jpeg: Buffer, comment: string): Buffer => {
  const segment = (marker: number, text: string) => {
    const data = Buffer.from(text, 'latin1');
    const header = Buffer.from([0xff, marker, 0, 0]);
    header.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([header, data]);
  };
  return Buffer.concat([jpeg.subarray(0, 2), segment(0xfe, comment), segment(0xef, `vendor ${comment}`), jpeg.subarray(2)]);
};

describe('markup in pictures', () => {
  it('finds tags in bytes and text segments, not in plain pictures', async () => {
    const jpeg = await picture('jpeg');
    expect(holdsMarkup(jpeg)).toBe(false);
    expect(servableAsIs(jpeg, 'jpg')).toBe(true);
    const hostile = jpegWith(jpeg, HTML);
    expect(holdsMarkup(hostile)).toBe(true);
    expect(textSegments(hostile, 'jpg')).toHaveLength(2);
    expect(markupInMetadata(hostile, 'jpg')).toBe(true);
    // The upload guard refuses it: the fixed signatures alone let `<body onload=…>` through.
    expect(polyglotReason(hostile, 'jpg')).toMatch(/metadata/);
    // A harmless comment is not refused, but the file is not served as it came either.
    const commented = jpegWith(jpeg, 'shot on a phone');
    expect(polyglotReason(commented, 'jpg')).toBeNull();
    expect(servableAsIs(commented, 'jpg')).toBe(false);
  });

  it('strips JPEG comments and APPn segments losslessly, keeping the scan data and the orientation', async () => {
    const jpeg = await picture('jpeg');
    const commented = jpegWith(jpeg, 'not markup, just words');
    const clean = await cleanPhoto(commented, 'jpg', 6, 50_000_000);
    expect(clean.how).toBe('stripped');
    // SOI, a 36-byte EXIF segment holding only the orientation, then the original file after its SOI.
    expect(clean.bytes.subarray(2, 4).equals(Buffer.from([0xff, 0xe1]))).toBe(true);
    expect(clean.bytes.subarray(2 + 36).equals(jpeg.subarray(2))).toBe(true);
    expect(clean.bytes.includes(Buffer.from('just words'))).toBe(false);
    const meta = await sharp(clean.bytes).metadata();
    expect(meta.orientation).toBe(6);
    expect((await sharp(clean.bytes).raw().toBuffer()).equals(await sharp(jpeg).raw().toBuffer())).toBe(true);
  });

  it('strips PNG text chunks losslessly', async () => {
    const png = await sharp(await picture('png')).withMetadata().png().toBuffer();
    const withText = await sharp(png).withExif({ IFD0: { ImageDescription: HTML } }).png().toBuffer();
    expect(textSegments(withText, 'png').length).toBeGreaterThan(0);
    const cleanPng = await cleanPhoto(withText, 'png', 1, 50_000_000);
    expect(cleanPng.how).toBe('stripped');
    expect(holdsMarkup(cleanPng.bytes)).toBe(false);
    expect((await sharp(cleanPng.bytes).metadata()).width).toBe(64);
  });

  it('strips a WebP of its EXIF, ICC and unknown chunks losslessly; re-encodes one its EXIF turns', async () => {
    const still = await picture('webp');
    const tagged = await sharp(still).withExif({ IFD0: { ImageDescription: 'taken at home' } }).withIccProfile('p3').webp().toBuffer();
    // a private chunk after the picture, as some tools write, the RIFF size grown to hold it
    const extra = Buffer.concat([Buffer.from('ABCD', 'latin1'), Buffer.from([5, 0, 0, 0]), Buffer.from('words\0', 'latin1')]);
    const withAll = Buffer.concat([tagged, extra]);
    withAll.writeUInt32LE(withAll.length - 8, 4);
    const before = await sharp(withAll).metadata();
    expect([before.exif !== undefined, before.icc !== undefined]).toEqual([true, true]);
    expect(textSegments(withAll, 'webp')).toHaveLength(3);
    const clean = await cleanPhoto(withAll, 'webp', 1, 50_000_000);
    expect(clean.how).toBe('stripped');
    expect(textSegments(clean.bytes, 'webp')).toEqual([]);
    expect(clean.bytes.readUInt32LE(4)).toBe(clean.bytes.length - 8);
    expect(clean.bytes[20] & (0x20 | 0x08 | 0x04)).toBe(0); // VP8X no longer announces ICC, EXIF or XMP
    const after = await sharp(clean.bytes).metadata();
    expect([after.exif, after.icc, after.width, after.height]).toEqual([undefined, undefined, 64, 48]);
    // the picture's own chunk, byte for byte
    const chunk = (bytes: Buffer) => {
      const at = bytes.indexOf(Buffer.from('VP8 ', 'latin1'));
      return bytes.subarray(at, at + 8 + bytes.readUInt32LE(at + 4));
    };
    expect(chunk(clean.bytes).length).toBeGreaterThan(20);
    expect(chunk(clean.bytes).equals(chunk(tagged))).toBe(true);
    // turned by its EXIF: stripping would lose the turn, so it is made upright from its pixels
    const turned = await sharp(still).withMetadata({ orientation: 6 }).webp().toBuffer();
    const upright = await cleanPhoto(turned, 'webp', 6, 50_000_000);
    expect(upright.how).toBe('re-encoded');
    const meta = await sharp(upright.bytes).metadata();
    expect([meta.exif, meta.width, meta.height]).toEqual([undefined, 48, 64]);
  });

  it('plans a WebP whose chunks lie (cut short, sizes past the end, zero-length VP8X) without throwing or over-allocating', async () => {
    const tagged = await sharp(await picture('webp')).withExif({ IFD0: { ImageDescription: 'taken at home' } }).webp().toBuffer();
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let round = 0; round < 2000; round++) {
      const bytes = Buffer.from(tagged.subarray(0, 12 + random(tagged.length - 11)));
      for (let flips = random(4); flips > 0; flips--) bytes[12 + random(Math.max(1, bytes.length - 12))] = random(256);
      if (round % 3 === 0 && bytes.length >= 20) bytes.writeUInt32LE(0xfffffff0, 16); // the first chunk claims 4 GiB
      const plan = planClean(bytes, 'webp', 1);
      if (plan.how === 'stripped') {
        expect(textSegments(plan.bytes, 'webp')).toEqual([]);
        expect(plan.bytes.readUInt32LE(4)).toBe(plan.bytes.length - 8);
        expect(plan.bytes.length).toBeLessThanOrEqual(bytes.length + 1);
      }
    }
  });

  it('images: a file with a comment is re-encoded, never served as it came; markup in metadata is a polyglot', async () => {
    const jpeg = await picture('jpeg', 400, 300);
    const commented = jpegWith(jpeg, 'a comment');
    const processed = await processUpload(commented);
    expect(processed.sizes.full.equals(commented)).toBe(false);
    expect(processed.sizes.full.includes(Buffer.from('a comment'))).toBe(false);
    const refused = await processUpload(jpegWith(jpeg, HTML)).catch((error) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('image_polyglot');
  });
});

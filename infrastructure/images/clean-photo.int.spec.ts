import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.ts';
import { cleanPhoto } from './clean-photo.ts';
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

  it('strips PNG text chunks and re-encodes WebP with metadata', async () => {
    const png = await sharp(await picture('png')).withMetadata().png().toBuffer();
    const withText = await sharp(png).withExif({ IFD0: { ImageDescription: HTML } }).png().toBuffer();
    expect(textSegments(withText, 'png').length).toBeGreaterThan(0);
    const cleanPng = await cleanPhoto(withText, 'png', 1, 50_000_000);
    expect(cleanPng.how).toBe('stripped');
    expect(holdsMarkup(cleanPng.bytes)).toBe(false);
    expect((await sharp(cleanPng.bytes).metadata()).width).toBe(64);
    const webp = await sharp(await picture('webp')).withExif({ IFD0: { ImageDescription: 'hello' } }).webp().toBuffer();
    const cleanWebp = await cleanPhoto(webp, 'webp', 1, 50_000_000);
    expect(cleanWebp.how).toBe('re-encoded');
    expect((await sharp(cleanWebp.bytes).metadata()).exif).toBeUndefined();
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

import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.ts';
import { cropImage, deriveSmallSizes, processUpload, QUICK_MED_PIXELS } from './process-upload.ts';
import { uploadBudget } from '../../http/upload-budget.ts';
import { BYTES_PER_PIXEL, decodeCost, MAX_WHOLE_DECODE_PIXELS } from './decode-cost.ts';
import { looksTruncated, polyglotReason } from './polyglot.ts';

const picture = (format: 'jpeg' | 'png' | 'webp' | 'gif', width = 300, height = 200) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 140, b: 200 } } })[format]().toBuffer();

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
};

describe('processUpload', () => {
  it('decodes the four formats and makes the sizes: full and med at upload, small and thumb from med', async () => {
    for (const [format, expected] of [['jpeg', 'jpg'], ['png', 'png'], ['webp', 'webp'], ['gif', 'gif']] as const) {
      const result = await processUpload(await picture(format, 1000, 500));
      expect(result.format).toBe(expected);
      expect([result.width, result.height]).toEqual([1000, 500]);
      expect(Object.keys(result.sizes).sort()).toEqual(['full', 'med']);
      const sizes = { ...result.sizes, ...(await deriveSmallSizes(result.sizes.med, result.format)) };
      for (const [size, side, otherSide] of [['thumb', 150, 75], ['small', 320, 160], ['med', 640, 320], ['full', 1000, 500]] as const) {
        const meta = await sharp(sizes[size]).metadata();
        expect([meta.width, meta.height], `${format} ${size}`).toEqual([side, otherSide]);
        expect(meta.format).toBe(format === 'jpeg' ? 'jpeg' : format);
      }
    }
  });

  it('derives small sizes that are never larger than med', async () => {
    const tiny = await processUpload(await picture('png', 200, 100));
    const sizes = await deriveSmallSizes(tiny.sizes.med, tiny.format);
    expect((await sharp(sizes.small).metadata()).width).toBe(200);
    expect((await sharp(sizes.thumb).metadata()).width).toBe(150);
  });

  it('never enlarges a small image', async () => {
    const result = await processUpload(await picture('png', 100, 80));
    expect((await sharp(result.sizes.med).metadata()).width).toBe(100);
  });

  it('applies the EXIF orientation to the stored image', async () => {
    const rotated = await sharp(await picture('jpeg', 300, 200)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const result = await processUpload(rotated);
    expect([result.width, result.height]).toEqual([200, 300]);
    // med, made from the upload's bytes beside the metadata read, is upright too and carries no EXIF
    const med = await sharp(result.sizes.med).metadata();
    expect([med.width, med.height, med.orientation, med.exif]).toEqual([200, 300, undefined, undefined]);
  });

  it('refuses a pixel bomb from its header (no unhandled rejection, nothing decoded)', async () => {
    // 20,000 × 20,000 grey pixels in a few KiB: a valid PNG header over an IDAT that never has to be read.
    const header = Buffer.alloc(13);
    header.writeUInt32BE(20_000, 0);
    header.writeUInt32BE(20_000, 4);
    header.writeUInt8(8, 8);
    const chunk = (type: string, data: Buffer) => {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(body));
      return Buffer.concat([length, body, crc]);
    };
    const bomb = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', deflateSync(Buffer.alloc(20_001 * 100), { level: 9 })),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    const started = performance.now();
    expect(await codeOf(processUpload(bomb))).toBe('image_too_many_pixels');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('refuses a GIF, an interlaced PNG or a progressive JPEG over 4096 × 4096 from its header: decoded whole, a tiny file takes hundreds of MiB', async () => {
    const black = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: '#000' } });
    const big = [
      await black(4100, 4100).gif().toBuffer(),
      await black(4100, 4100).png({ progressive: true }).toBuffer(),
      await black(4100, 4100).jpeg({ progressive: true }).toBuffer(),
    ];
    for (const file of big) {
      expect(file.length).toBeLessThan(400 * 1024);
      expect(await codeOf(processUpload(file))).toBe('image_too_many_pixels');
    }
    // The same pixels streamed (a baseline JPEG, a PNG that is not interlaced) are taken.
    expect(await codeOf(processUpload(await black(4100, 4100).jpeg().toBuffer()))).toBe('ok');
    expect(await codeOf(processUpload(await black(4100, 4100).png().toBuffer()))).toBe('ok');
    expect(MAX_WHOLE_DECODE_PIXELS).toBe(4096 * 4096);
  });

  it('waits for its decoding cost in the memory budget, in arrival order, and gives it back however it ends', async () => {
    const budget = uploadBudget(40 * 1024 * 1024);
    const asked: number[] = [];
    let inFlight = 0;
    let most = 0;
    const memory = {
      acquire: async (bytes: number) => {
        asked.push(bytes);
        const give = await budget.acquire(bytes);
        inFlight += 1;
        most = Math.max(most, inFlight);
        return () => {
          inFlight -= 1;
          give();
        };
      },
    };
    // Progressive 2000 × 2000 JPEGs: 4 megapixels decoded whole, 24 MB each by the estimate, so one at a time in 40 MB.
    const progressive = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: '#357' } }).jpeg({ progressive: true }).toBuffer();
    const results = await Promise.all([1, 2, 3].map(() => codeOf(processUpload(progressive, {}, memory))));
    expect(results).toEqual(['ok', 'ok', 'ok']);
    expect(asked).toEqual([1, 2, 3].map(() => 2000 * 2000 * BYTES_PER_PIXEL.decodedWhole));
    expect(most).toBe(1);
    expect(budget.held()).toBe(0);
    // A corrupt image gives its share back too.
    const corrupt = Buffer.from(progressive);
    corrupt.fill(0x55, 2000, 6000);
    await codeOf(processUpload(corrupt, {}, memory));
    expect(budget.held()).toBe(0);
  });

  it('makes med beside the header read for an image of at most QUICK_MED_PIXELS, in its share of the budget; a larger one after the header, in its cost', async () => {
    const asked: number[] = [];
    const budget = uploadBudget(160 * 1024 * 1024);
    const memory = { acquire: async (bytes: number) => (asked.push(bytes), budget.acquire(bytes)) };
    const quickShare = QUICK_MED_PIXELS * BYTES_PER_PIXEL.decodedWhole;
    const small = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const quick = await processUpload(small, {}, memory);
    expect(asked).toEqual([quickShare]);
    expect(quick.sizes.med.equals(await sharp(small).resize({ width: 640, height: 640, fit: 'inside' }).jpeg({ quality: 85 }).toBuffer())).toBe(true);
    // one that carries EXIF: med at once, then its full re-encode in its cost
    asked.length = 0;
    const withExif = await sharp(small).withExif({ IFD0: { Artist: 'someone' } }).jpeg().toBuffer();
    expect((await processUpload(withExif, {}, memory)).sizes.med.length).toBeGreaterThan(0);
    expect(asked).toEqual([quickShare, decodeCost({ format: 'jpeg', width: 2000, height: 1500 }, { reencodesFull: true })]);
    // larger: libvips refuses the quick decode from the header, and med waits for its cost
    asked.length = 0;
    const large = await sharp({ create: { width: 2500, height: 2000, channels: 3, background: '#468' } }).jpeg().toBuffer();
    const slow = await processUpload(large, {}, memory);
    expect(asked).toEqual([quickShare, decodeCost({ format: 'jpeg', width: 2500, height: 2000 }, { reencodesFull: false })]);
    expect((await sharp(slow.sizes.med).metadata()).width).toBe(640);
    expect(budget.held()).toBe(0);
    // one whose header cannot be read gives its share back
    const corrupt = Buffer.from(small);
    corrupt.fill(0x55, 20, 400);
    expect(await codeOf(processUpload(corrupt, {}, memory))).toMatch(/^image_/);
    expect(budget.held()).toBe(0);
  });

  it('counts the decoding cost by the work the header calls for', () => {
    const mp = 1_000_000;
    const at = (meta: Parameters<typeof decodeCost>[0], reencodesFull: boolean) => decodeCost(meta, { reencodesFull }) / mp;
    expect(at({ format: 'jpeg', width: 4000, height: 3000 }, false)).toBe(12 * BYTES_PER_PIXEL.streamed);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, orientation: 6 }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedFromWhole);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, orientation: 3 }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedFromWhole);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, orientation: 2 }, true)).toBe(12 * BYTES_PER_PIXEL.streamed);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, orientation: 6 }, false)).toBe(12 * BYTES_PER_PIXEL.streamed);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, isProgressive: true }, false)).toBe(12 * BYTES_PER_PIXEL.decodedWhole);
    expect(at({ format: 'png', width: 4000, height: 3000, isProgressive: true }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedFromWhole);
    expect(at({ format: 'jpeg', width: 4000, height: 3000, isProgressive: true }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedFromWhole);
    expect(at({ format: 'gif', width: 4000, height: 3000 }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedWhole);
    expect(at({ format: 'webp', width: 4000, height: 3000 }, true)).toBe(12 * BYTES_PER_PIXEL.reencodedWhole);
    expect(at({ format: 'webp', width: 4000, height: 3000 }, false)).toBe(12 * BYTES_PER_PIXEL.streamed);
  });

  it('keeps a plain upright file as its full size, byte for byte, and re-encodes one that carries metadata without it', async () => {
    const plain = await picture('jpeg', 800, 600);
    expect((await processUpload(plain)).sizes.full.equals(plain)).toBe(true);
    const withExif = await sharp(plain).withExif({ IFD0: { Artist: 'someone', ImageDescription: 'taken at home' } }).jpeg().toBuffer();
    expect((await sharp(withExif).metadata()).exif).toBeDefined();
    const cleaned = await processUpload(withExif);
    expect(cleaned.sizes.full.equals(withExif)).toBe(false);
    expect(cleaned.original.equals(withExif)).toBe(true);
    const all = { ...cleaned.sizes, ...(await deriveSmallSizes(cleaned.sizes.med, cleaned.format)) };
    for (const size of ['full', 'med', 'small', 'thumb'] as const) {
      const meta = await sharp(all[size]).metadata();
      expect(meta.exif, size).toBeUndefined();
    }
    // a resize asked for is a change too
    const resized = await processUpload(plain, { width: 400 });
    expect([resized.width, resized.height]).toEqual([400, 300]);
    expect((await sharp(resized.sizes.med).metadata()).width).toBe(400);
  });

  it('keeps a WebP carrying metadata without re-encoding it, and refuses a re-encoded one larger than 4096 × 4096', { timeout: 60_000 }, async () => {
    // libwebp encodes a whole picture at once (decode-cost.ts): an upright still WebP loses its
    // metadata chunks instead (clean-photo.ts), its picture kept byte for byte.
    const tagged = await sharp(await picture('webp', 800, 600)).withExif({ IFD0: { Artist: 'someone' } }).webp().toBuffer();
    const kept = await processUpload(tagged);
    const vp8 = (bytes: Buffer) => {
      const at = bytes.indexOf(Buffer.from('VP8 ', 'latin1'));
      return bytes.subarray(at, at + 8 + bytes.readUInt32LE(at + 4));
    };
    expect((await sharp(kept.sizes.full).metadata()).exif).toBeUndefined();
    expect(kept.sizes.full.length).toBeLessThan(tagged.length);
    expect(vp8(kept.sizes.full).equals(vp8(tagged))).toBe(true);
    // turned by its EXIF, it has to be re-encoded: refused from its header beyond 4096 × 4096 ...
    const turned = await sharp({ create: { width: 4200, height: 4000, channels: 3, background: '#5a7' } }).webp({ quality: 50, effort: 0 }).withMetadata({ orientation: 6 }).toBuffer();
    expect(4200 * 4000).toBeGreaterThan(MAX_WHOLE_DECODE_PIXELS);
    expect(await codeOf(processUpload(turned))).toBe('image_too_many_pixels');
    // ... and made when what is written fits (resized upright to 2000 × 2100)
    const resized = await processUpload(turned, { width: 2000 });
    expect([resized.width, resized.height]).toEqual([2000, 2100]);
  });

  it('refuses empty, unknown, truncated, polyglot files with their codes', async () => {
    expect(await codeOf(processUpload(Buffer.alloc(0)))).toBe('image_empty');
    expect(await codeOf(processUpload(Buffer.from('hello, this is not an image')))).toBe('unsupported_media_type');
    for (const format of ['jpeg', 'png', 'webp', 'gif'] as const) {
      const bytes = await picture(format);
      expect(await codeOf(processUpload(bytes.subarray(0, Math.floor(bytes.length * 0.7)))), format).toBe('image_truncated');
      expect(await codeOf(processUpload(Buffer.concat([bytes, Buffer.from('PK\u0003\u0004...zip...')]))), format).toBe('image_polyglot');
    }
  });

  it('crops a box into a new image', async () => {
    const result = await cropImage(await picture('png', 400, 200), 'png', { left: 0.25, top: 0.5, width: 0.5, height: 0.5 });
    expect([result.width, result.height]).toEqual([200, 100]);
  });
});

describe('polyglot and truncation checks', () => {
  it('tolerates a little zero padding but not data after the end', async () => {
    const png = await picture('png');
    expect(polyglotReason(Buffer.concat([png, Buffer.alloc(4)]), 'png')).toBeNull();
    expect(polyglotReason(Buffer.concat([png, Buffer.from('hello there, trailing text!')]), 'png')).toMatch(/follow the end/);
    expect(polyglotReason(Buffer.concat([png.subarray(0, 40), Buffer.from('<script>x</script>'), png.subarray(40)]), 'png')).toMatch(/script|follow/);
    expect(looksTruncated(png, 'png')).toBe(false);
    expect(looksTruncated(png.subarray(0, png.length - 12), 'png')).toBe(true);
  });
});

/**
 * Hostile media for the corpus test (test/hostile-media.e2e.spec.ts), built in code from small
 * clips ffmpeg makes and from bytes written here: no binary fixtures. Each builder says the attack.
 */
import { crc32, createDeflate, deflateSync } from 'node:zlib';

// ---------------------------------------------------------------- ISO base media (MP4/MOV) boxes

export type Box = { type: string; data?: Buffer; children?: Box[] };

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts', 'dinf', 'udta']);

/** The box tree of an MP4 (containers parsed, leaves kept as bytes). */
export const parseBoxes = (bytes: Buffer, start = 0, end = bytes.length): Box[] => {
  const boxes: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      size = Number(bytes.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) size = end - offset;
    boxes.push(CONTAINERS.has(type) ? { type, children: parseBoxes(bytes, offset + header, offset + size) } : { type, data: bytes.subarray(offset + header, offset + size) });
    offset += size;
  }
  return boxes;
};

export const box = (type: string, body: Buffer | Box[]): Buffer => {
  const payload = Buffer.isBuffer(body) ? body : Buffer.concat(body.map(serialiseBox));
  const header = Buffer.alloc(8);
  header.writeUInt32BE(payload.length + 8, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
};
export const serialiseBox = (node: Box): Buffer => box(node.type, node.children ?? node.data ?? Buffer.alloc(0));
export const serialise = (boxes: Box[]): Buffer => Buffer.concat(boxes.map(serialiseBox));

/** The first box at a path such as `moov/trak/mdia/minf/stbl/stts`. */
export const find = (boxes: Box[], path: string): Box => {
  const [head, ...rest] = path.split('/');
  const found = boxes.find((node) => node.type === head);
  if (!found) throw new Error(`no ${head} box`);
  return rest.length === 0 ? found : find(found.children ?? [], rest.join('/'));
};

const u32 = (...values: number[]): Buffer => {
  const buffer = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => buffer.writeUInt32BE(value >>> 0, index * 4));
  return buffer;
};

/** The clip with its edit list removed (ffmpeg then plays the whole sample table, gaps included). */
const withoutEdits = (boxes: Box[]): void => {
  const trak = find(boxes, 'moov/trak');
  trak.children = trak.children!.filter((child) => child.type !== 'edts');
};

/**
 * One timestamp gap: the last frame lasts `gapSeconds` (its stts delta). The `fps` filter fills the
 * gap with copies of the frame; with the movie and track durations left as they were the file
 * states a short duration, or with `stateDuration` it states the gap too.
 */
export const timestampGap = (clip: Buffer, gapSeconds: number, stateDuration: boolean): Buffer => {
  const boxes = parseBoxes(clip);
  withoutEdits(boxes);
  const mdhd = find(boxes, 'moov/trak/mdia/mdhd').data!;
  const timescale = mdhd.readUInt32BE(12);
  const stts = find(boxes, 'moov/trak/mdia/minf/stbl/stts');
  const count = stts.data!.readUInt32BE(8);
  const delta = stts.data!.readUInt32BE(12);
  stts.data = Buffer.concat([u32(0, 2), u32(count - 1, delta), u32(1, Math.round(gapSeconds * timescale))]);
  if (stateDuration) {
    const mediaTicks = (count - 1) * delta + Math.round(gapSeconds * timescale);
    const newMdhd = Buffer.from(mdhd);
    newMdhd.writeUInt32BE(Math.min(0xffffffff, mediaTicks), 16);
    find(boxes, 'moov/trak/mdia/mdhd').data = newMdhd;
    const mvhd = Buffer.from(find(boxes, 'moov/mvhd').data!);
    const movieScale = mvhd.readUInt32BE(12);
    mvhd.writeUInt32BE(Math.min(0xffffffff, Math.round((mediaTicks / timescale) * movieScale)), 16);
    find(boxes, 'moov/mvhd').data = mvhd;
  }
  return serialise(boxes);
};

/** Absurd durations: every frame lasts `secondsPerFrame`, and the headers say so (version-1 mdhd, 64-bit duration). */
export const hugeDuration = (clip: Buffer, secondsPerFrame: number): Buffer => {
  const boxes = parseBoxes(clip);
  withoutEdits(boxes);
  const mdhd = find(boxes, 'moov/trak/mdia/mdhd');
  const timescale = mdhd.data!.readUInt32BE(12);
  const stts = find(boxes, 'moov/trak/mdia/minf/stbl/stts');
  const count = stts.data!.readUInt32BE(8);
  stts.data = Buffer.concat([u32(0, 1), u32(count, Math.min(0xffffffff, secondsPerFrame * timescale))]);
  const v1 = Buffer.alloc(36);
  v1.writeUInt32BE(0x01000000, 0);
  v1.writeUInt32BE(timescale, 20);
  v1.writeBigUInt64BE(BigInt(count) * BigInt(Math.min(0xffffffff, secondsPerFrame * timescale)), 24);
  mdhd.data!.copy(v1, 32, 20, 24); // language, quality
  mdhd.data = v1;
  return serialise(boxes);
};

/** Movie, track and media durations all zero (and no edit list): the file states no duration at all. */
export const noDuration = (clip: Buffer): Buffer => {
  const boxes = parseBoxes(clip);
  withoutEdits(boxes);
  const zero = (path: string, offset: number) => {
    const node = find(boxes, path);
    const data = Buffer.from(node.data!);
    data.writeUInt32BE(0, offset);
    node.data = data;
  };
  zero('moov/mvhd', 16);
  zero('moov/trak/tkhd', 20);
  zero('moov/trak/mdia/mdhd', 16);
  return serialise(boxes);
};

/** An edit list of `edits` entries (ffmpeg rebuilds its index for each: 20,000 made ffprobe use 2 GB). */
export const oversizedEditList = (clip: Buffer, edits: number): Buffer => {
  const boxes = parseBoxes(clip);
  const trak = find(boxes, 'moov/trak');
  // Every edit plays the whole track again: ffmpeg's index holds edits × samples entries.
  const movieDuration = find(boxes, 'moov/mvhd').data!.readUInt32BE(16);
  const entries = Buffer.alloc(edits * 12);
  for (let i = 0; i < edits; i++) {
    entries.writeUInt32BE(movieDuration, i * 12); // segment duration (movie ticks)
    entries.writeUInt32BE(0, i * 12 + 4); // media time
    entries.writeUInt32BE(0x00010000, i * 12 + 8); // rate 1.0
  }
  const edts: Box = { type: 'edts', children: [{ type: 'elst', data: Buffer.concat([u32(0, edits), entries]) }] };
  trak.children = [...trak.children!.filter((child) => child.type !== 'edts'), edts];
  return serialise(boxes);
};

/** A sample table of 50 million samples in a few bytes (constant sample size): ffmpeg allocates an index entry for each. */
export const hugeSampleTable = (clip: Buffer, samples: number): Buffer => {
  const boxes = parseBoxes(clip);
  withoutEdits(boxes);
  const stbl = find(boxes, 'moov/trak/mdia/minf/stbl');
  for (const child of stbl.children!) {
    if (child.type === 'stts') child.data = Buffer.concat([u32(0, 1), u32(samples, 1)]);
    if (child.type === 'stsz') child.data = u32(0, 16, samples);
    if (child.type === 'stsc') child.data = Buffer.concat([u32(0, 1), u32(1, samples, 1)]);
    if (child.type === 'stss') child.data = u32(0, 0);
  }
  return serialise(boxes);
};

/**
 * A `dref` whose first entry (the one the sample description points at) is a Macintosh alias record
 * naming an absolute path: ffmpeg with `-enable_drefs 1 -use_absolute_path 1` opens that file for
 * the samples. A second entry names a URL.
 */
export const externalReference = (clip: Buffer, path: string, url: string): Buffer => {
  const boxes = parseBoxes(clip);
  const dinf = find(boxes, 'moov/trak/mdia/minf/dinf');
  const name = Buffer.alloc(64);
  name.writeUInt8(Math.min(63, path.length), 0);
  name.write(path.slice(-63), 1, 'latin1');
  const target = Buffer.from(path, 'latin1');
  const padded = Buffer.concat([target, Buffer.alloc(target.length % 2)]);
  const record = Buffer.alloc(4);
  record.writeUInt16BE(2, 0); // absolute path
  record.writeUInt16BE(target.length, 2);
  const end = Buffer.from([0xff, 0xff, 0, 0]);
  const alias = Buffer.concat([
    Buffer.alloc(10), // creator, record size, version, kind
    Buffer.alloc(28), // volume name (length 0)
    Buffer.alloc(12), // volume date, file system, disk type
    name, // file name (length, 63 bytes)
    Buffer.alloc(16), // parent id, file number, creation date
    Buffer.from([0, 0, 0, 0]), // levels up from alias / down to target: none (absolute)
    Buffer.alloc(16),
    record,
    padded,
    end,
  ]);
  const aliasEntry = box('alis', Buffer.concat([u32(0), alias]));
  const urlEntry = box('url ', Buffer.concat([u32(0), Buffer.from(`${url}\u0000`, 'latin1')]));
  dinf.children = [{ type: 'dref', data: Buffer.concat([u32(0, 2), aliasEntry, urlEntry]) }];
  return serialise(boxes);
};

/** The moov cut in half: a box whose size runs past the end of the file. */
export const truncatedAtom = (clip: Buffer): Buffer => clip.subarray(0, clip.length - Math.floor(find(parseBoxes(clip), 'moov').children!.length * 40));

/** Atoms that do not nest: a child claiming more bytes than its parent, or traks nested a thousand deep. */
export const loopingAtoms = (clip: Buffer): { overlong: Buffer; deep: Buffer; zeroSized: Buffer } => {
  const boxes = parseBoxes(clip);
  const moovIndex = boxes.findIndex((node) => node.type === 'moov');
  const before = serialise(boxes.slice(0, moovIndex));
  const moov = serialiseBox(boxes[moovIndex]);
  const overlong = Buffer.from(moov);
  overlong.writeUInt32BE(moov.length * 4, 8); // the first child (mvhd) claims four times the moov
  let deep = box('free', Buffer.alloc(0));
  for (let i = 0; i < 1000; i++) deep = box('trak', deep);
  // A zero size inside a container ("to the end of the parent") pointing at the moov itself.
  const zeroSized = Buffer.concat([box('moov', Buffer.concat([u32(0), Buffer.from('trak', 'latin1'), u32(0), Buffer.from('trak', 'latin1')]))]);
  return { overlong: Buffer.concat([before, overlong]), deep: Buffer.concat([before, box('moov', deep)]), zeroSized: Buffer.concat([before, zeroSized]) };
};

// ---------------------------------------------------------------- AVI (RIFF) with an HLS playlist in a GAB2 subtitle

type Chunk = { id: string; list?: string; data?: Buffer; children?: Chunk[] };

const parseRiff = (bytes: Buffer, start: number, end: number): Chunk[] => {
  const chunks: Chunk[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'LIST' || id === 'RIFF') chunks.push({ id, list: bytes.toString('latin1', offset + 8, offset + 12), children: parseRiff(bytes, offset + 12, offset + 8 + size) });
    else chunks.push({ id, data: bytes.subarray(offset + 8, offset + 8 + size) });
    offset += 8 + size + (size % 2);
  }
  return chunks;
};

const serialiseRiff = (chunk: Chunk): Buffer => {
  const body = chunk.children ? Buffer.concat([Buffer.from(chunk.list!, 'latin1'), ...chunk.children.map(serialiseRiff)]) : chunk.data!;
  const header = Buffer.alloc(8);
  header.write(chunk.id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
};

/**
 * An AVI whose second stream is a GAB2 subtitle holding an HLS playlist (the 2017 attack: the AVI
 * demuxer probes the subtitle's contents and opens whatever demuxer fits, which then fetched the
 * playlist's URLs — local files and the network).
 */
export const hlsInAvi = (avi: Buffer, playlist: string): Buffer => {
  const [riff] = parseRiff(avi, 0, avi.length);
  const hdrl = riff.children!.find((chunk) => chunk.list === 'hdrl')!;
  const avih = hdrl.children!.find((chunk) => chunk.id === 'avih')!;
  const header = Buffer.from(avih.data!);
  header.writeUInt32LE(2, 24); // dwStreams
  avih.data = header;
  const strh = Buffer.alloc(56);
  strh.write('txts', 0, 'latin1');
  strh.writeUInt32LE(1, 20); // scale
  strh.writeUInt32LE(1, 24); // rate
  strh.writeUInt32LE(1, 32); // length
  hdrl.children!.push({ id: 'LIST', list: 'strl', children: [{ id: 'strh', data: strh }, { id: 'strf', data: Buffer.alloc(0) }] });
  const name = Buffer.from('en\u0000', 'utf16le');
  const text = Buffer.from(playlist, 'latin1');
  const gab2 = Buffer.concat([Buffer.from('GAB2\u0000', 'latin1'), Buffer.from([2, 0]), u32le(name.length), name, Buffer.from([4, 0]), u32le(text.length), text]);
  const movi = riff.children!.find((chunk) => chunk.list === 'movi')!;
  movi.children!.unshift({ id: '01tx', data: gab2 });
  riff.children = riff.children!.filter((chunk) => chunk.id !== 'idx1'); // no index: read in order
  return serialiseRiff(riff);
};

const u32le = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
};

// ---------------------------------------------------------------- pictures

const pngChunk = (type: string, data: Buffer): Buffer => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([u32(data.length), body, crc]);
};

const pngOf = (width: number, height: number, idat: Buffer): Buffer => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // grayscale
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
};

/** A PNG of side × side black pixels: a few hundred KB that decode to side² bytes. */
export const pngBomb = async (side: number): Promise<Buffer> => {
  const deflate = createDeflate({ level: 9 });
  const compressed: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => compressed.push(chunk));
  const done = new Promise((resolve) => deflate.on('end', resolve));
  const row = Buffer.alloc(side + 1);
  for (let y = 0; y < side; y++) if (!deflate.write(row)) await new Promise((resolve) => deflate.once('drain', resolve));
  deflate.end();
  await done;
  return pngOf(side, side, Buffer.concat(compressed));
};

/** A one-row grey PNG whose pixels are the text, in stored (uncompressed) deflate blocks: the text sits in the file as is. */
export const pngWithTextPixels = (text: string): Buffer => {
  const pixels = Buffer.from(text, 'latin1');
  const rows: Buffer[] = [];
  for (let y = 0; y < 8; y++) rows.push(Buffer.concat([Buffer.from([0]), pixels]));
  return pngOf(pixels.length, 8, deflateSync(Buffer.concat(rows), { level: 0 }));
};

/** A GIF whose screen and image are 65,535 × 65,535 (4.3 gigapixels) with a near-empty LZW stream. */
export const gifBomb = (): Buffer =>
  Buffer.concat([
    Buffer.from('GIF89a', 'latin1'),
    Buffer.from([0xff, 0xff, 0xff, 0xff, 0x80, 0, 0]), // screen 65535×65535, 2-colour table
    Buffer.from([0, 0, 0, 0xff, 0xff, 0xff]),
    Buffer.from([0x2c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0]), // image descriptor
    Buffer.from([2, 2, 0x4c, 0x01, 0]), // LZW: min code size 2, one sub-block, terminator
    Buffer.from([0x3b]),
  ]);

/** A lossless WebP header claiming 16,384 × 16,384 pixels (268 megapixels). */
export const webpBomb = (): Buffer => {
  const vp8l = Buffer.alloc(5 + 64);
  vp8l[0] = 0x2f;
  const bits = (16383 & 0x3fff) | ((16383 & 0x3fff) << 14); // width-1, height-1, no alpha, version 0
  vp8l.writeUInt32LE(bits >>> 0, 1);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'latin1'), u32le(vp8l.length), vp8l]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(4 + chunk.length), Buffer.from('WEBP', 'latin1'), chunk]);
};

/** The JPEG with an HTML comment segment (COM) and the same markup in an APP15 segment, right after SOI. */
export const jpegWithHtml = (jpeg: Buffer, html: string): Buffer => {
  const segment = (marker: number, text: string) => {
    const data = Buffer.from(text, 'latin1');
    const header = Buffer.from([0xff, marker, 0, 0]);
    header.writeUInt16BE(data.length + 2, 2);
    return Buffer.concat([header, data]);
  };
  return Buffer.concat([jpeg.subarray(0, 2), segment(0xfe, html), segment(0xef, html), jpeg.subarray(2)]);
};

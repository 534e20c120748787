import { open, type FileHandle } from 'node:fs/promises';

/** Boxes read in all before the file is called malformed (a real file has a few hundred). */
const MAX_BOXES = 100_000;
/** Containers nested deeper than this are malformed (moov/trak/mdia/minf/stbl is 5). */
const MAX_DEPTH = 8;

/** Containers walked into to find tracks and edit lists; their children are boxes again. */
const CONTAINERS = new Set(['moov', 'trak', 'edts']);

export type IsobmffShape =
  | { ok: true; tracks: number; maxEditEntries: number }
  | { ok: false; reason: 'truncated' | 'malformed' };

type Walk = { file: FileHandle; boxes: number; tracks: number; maxEditEntries: number };

/**
 * Walks the boxes between `start` and `end` header by header (never reading their payloads, except
 * an edit list's entry count): each box must lie within its parent and be at least a header long,
 * so the walk always moves forward and ends. Descends into moov, trak and edts.
 */
const walk = async (state: Walk, start: number, end: number, depth: number, fileSize: number): Promise<IsobmffShape | null> => {
  const header = Buffer.alloc(16);
  let offset = start;
  while (offset < end) {
    if (++state.boxes > MAX_BOXES) return { ok: false, reason: 'malformed' };
    const { bytesRead } = await state.file.read(header, 0, 16, offset);
    if (bytesRead < 8) return { ok: false, reason: depth === 0 ? 'truncated' : 'malformed' };
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1) {
      if (bytesRead < 16) return { ok: false, reason: 'truncated' };
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      size = end - offset; // extends to the end of its parent (of the file, at the top)
    }
    if (size < headerSize) return { ok: false, reason: 'malformed' };
    if (offset + size > end) return { ok: false, reason: end === fileSize && depth === 0 ? 'truncated' : 'malformed' };
    if (CONTAINERS.has(type)) {
      if (depth >= MAX_DEPTH) return { ok: false, reason: 'malformed' };
      if (type === 'trak') state.tracks += 1;
      const inner = await walk(state, offset + headerSize, offset + size, depth + 1, fileSize);
      if (inner) return inner;
    } else if (type === 'elst') {
      // FullBox: version (1), flags (3), entry_count (4).
      const counts = Buffer.alloc(8);
      const read = await state.file.read(counts, 0, 8, offset + headerSize);
      if (read.bytesRead < 8) return { ok: false, reason: 'malformed' };
      state.maxEditEntries = Math.max(state.maxEditEntries, counts.readUInt32BE(4));
    }
    offset += size;
  }
  return null;
};

/**
 * The shape of an ISO base media file (MP4, MOV, 3GP), read from its box headers before ffprobe
 * sees it:
 * - whole: its top-level boxes end exactly at the end of the file (a file cut short ends inside
 *   its last box — a truncated `mdat` or `moov` — which ffprobe does not always notice when the
 *   index comes first);
 * - well-formed: every box inside moov/trak/edts lies within its parent (an atom whose size points
 *   outside its parent, or back into itself, is malformed);
 * - how many tracks it has and the longest edit list (`elst` entry count), which upload refuses
 *   when absurd: ffmpeg builds an index per edit, and 20,000 edits made ffprobe use 2 GB.
 */
export const inspectIsobmff = async (path: string): Promise<IsobmffShape> => {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size < 8) return { ok: false, reason: 'truncated' };
    const state: Walk = { file, boxes: 0, tracks: 0, maxEditEntries: 0 };
    const problem = await walk(state, 0, size, 0, size);
    return problem ?? { ok: true, tracks: state.tracks, maxEditEntries: state.maxEditEntries };
  } finally {
    await file.close();
  }
};

/** Whether the file is whole and well-formed (see inspectIsobmff). */
export const isobmffComplete = async (path: string): Promise<boolean> => (await inspectIsobmff(path)).ok;

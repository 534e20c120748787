import { open } from 'node:fs/promises';

/**
 * Whether an ISO base media file (MP4, MOV, 3GP) is whole: its top-level boxes, read header by
 * header, must end exactly at the end of the file. A file cut short ends inside its last box (a
 * truncated `mdat` or `moov`), which ffprobe does not always notice when the index comes first.
 */
export const isobmffComplete = async (path: string): Promise<boolean> => {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const header = Buffer.alloc(16);
    let offset = 0;
    let boxes = 0;
    while (offset < size) {
      const { bytesRead } = await file.read(header, 0, 16, offset);
      if (bytesRead < 8) return false;
      let boxSize = header.readUInt32BE(0);
      if (boxSize === 1) {
        if (bytesRead < 16) return false;
        boxSize = Number(header.readBigUInt64BE(8));
      } else if (boxSize === 0) {
        boxSize = size - offset; // extends to the end of the file
      }
      if (boxSize < 8 || offset + boxSize > size) return false;
      offset += boxSize;
      if (++boxes > 100_000) return false;
    }
    return boxes > 0;
  } finally {
    await file.close();
  }
};

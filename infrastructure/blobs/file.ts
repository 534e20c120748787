import { createReadStream, createWriteStream, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomId } from '../ids.ts';
import { isValidBlobKey, type BlobStore } from './port.ts';

/**
 * Blobs up to this size are written on the event loop, in one go: into the page cache (nothing here
 * waits for the disk) that takes ≈ 0.1 ms for 256 KiB, while the same writes in the thread pool are
 * three waits in a row, each behind whatever else the pool and the loop are busy with — in a mixed
 * load, image decodes on the pool and a busy loop made a small upload's blobs ≈ 30–40 ms of its
 * answer. Larger blobs (a 50 MB original) are written in the thread pool, off the loop.
 */
export const SYNC_WRITE_MAX_BYTES = 256 * 1024;

/**
 * The embedded blob store: one file per blob under DATA_DIR/blobs, with its content type beside
 * it. Writes go to a temporary file renamed into place, so a crash never leaves half a blob.
 */
export const fileBlobStore = (dir: string): BlobStore => {
  const path = (key: string) => {
    if (!isValidBlobKey(key)) throw new Error(`invalid blob key '${key}'`);
    return join(dir, key);
  };
  const exists = async (file: string) => stat(file).then((s) => s, () => null);
  // The directory is made once per store (again should it have been removed since).
  let made: Promise<unknown> | null = null;
  const madeDir = () => (made ??= mkdir(dir, { recursive: true }).catch((error) => ((made = null), Promise.reject(error))));
  /**
   * Bytes into a new file: opened and written, its handle left open (null for a stream, which
   * closes its file itself) so that the close can run beside the rename that follows — a file's
   * bytes are in it once written, closed or not.
   */
  const write = async (file: string, data: Buffer | string | Readable): Promise<FileHandle | null> => {
    if (!Buffer.isBuffer(data) && typeof data !== 'string') {
      await pipeline(data, createWriteStream(file));
      return null;
    }
    const handle = await open(file, 'w');
    try {
      await handle.writeFile(data);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  };
  const closeAll = (handles: (FileHandle | null)[]) => Promise.allSettled(handles.map((handle) => handle?.close()));
  return {
    async put(key, data, contentType) {
      await madeDir();
      const target = path(key);
      const temporary = `${target}.${randomId(6)}.tmp`;
      if (Buffer.isBuffer(data) && data.length <= SYNC_WRITE_MAX_BYTES) {
        const writeNow = () => {
          try {
            writeFileSync(temporary, data);
            writeFileSync(`${target}.type`, contentType);
            renameSync(temporary, target);
          } catch (error) {
            rmSync(temporary, { force: true });
            throw error;
          }
        };
        try {
          writeNow();
        } catch (error) {
          // The directory removed meanwhile: made again, and the blob written once more.
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
          made = null;
          await madeDir();
          writeNow();
        }
        return { size: data.length };
      }
      /** A write again once the directory is made again, should it have been removed meanwhile. */
      const inDir = async (writeOnce: () => Promise<FileHandle | null>, again: boolean) => {
        try {
          return await writeOnce();
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !again) throw error;
          made = null;
          await madeDir();
          return writeOnce();
        }
      };
      // The bytes and the content type side by side (each file an open and a write in the thread
      // pool), then the rename that makes the blob visible, beside the files' closes: three waits
      // on the thread pool where open, write, close, rename in a row were four.
      const written = await Promise.allSettled([inDir(() => write(temporary, data), Buffer.isBuffer(data)), inDir(() => write(`${target}.type`, contentType), true)]);
      const handles = written.map((result) => (result.status === 'fulfilled' ? result.value : null));
      const failed = written.find((result) => result.status === 'rejected');
      if (failed) {
        await closeAll(handles);
        await rm(temporary, { force: true });
        throw failed.reason;
      }
      const [renamed, ...closed] = await Promise.allSettled([rename(temporary, target), ...handles.map((handle) => handle?.close())]);
      if (renamed.status === 'rejected') {
        await rm(temporary, { force: true });
        throw renamed.reason;
      }
      const notClosed = closed.find((result) => result.status === 'rejected');
      if (notClosed) throw notClosed.reason;
      return { size: Buffer.isBuffer(data) ? data.length : (await stat(target)).size };
    },
    async get(key) {
      const file = path(key);
      if (!(await exists(file))) return null;
      return { data: await readFile(file), contentType: (await readFile(`${file}.type`, 'utf8').catch(() => 'application/octet-stream')).trim() };
    },
    async stream(key) {
      const file = path(key);
      const info = await exists(file);
      if (!info) return null;
      const contentType = (await readFile(`${file}.type`, 'utf8').catch(() => 'application/octet-stream')).trim();
      return { stream: createReadStream(file), contentType, size: info.size };
    },
    async delete(key) {
      const file = path(key);
      const found = Boolean(await exists(file));
      await rm(file, { force: true });
      await rm(`${file}.type`, { force: true });
      return found;
    },
    async close() {},
  };
};

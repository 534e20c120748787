import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomId } from '../ids.ts';
import { isValidBlobKey, type BlobStore } from './port.ts';

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
  const write = async (temporary: string, data: Buffer | Readable) =>
    Buffer.isBuffer(data) ? writeFile(temporary, data) : pipeline(data, createWriteStream(temporary));
  return {
    async put(key, data, contentType) {
      await madeDir();
      const target = path(key);
      const temporary = `${target}.${randomId(6)}.tmp`;
      /** A write again once the directory is made again, should it have been removed meanwhile. */
      const inDir = async (writeOnce: () => Promise<unknown>, again: boolean) => {
        try {
          await writeOnce();
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !again) throw error;
          made = null;
          await madeDir();
          await writeOnce();
        }
      };
      // The bytes and the content type side by side (each file is an open, a write and a close in
      // the thread pool), then the rename that makes the blob visible.
      const written = await Promise.allSettled([
        inDir(() => write(temporary, data), Buffer.isBuffer(data)),
        inDir(() => writeFile(`${target}.type`, contentType), true),
      ]);
      const failed = written.find((result) => result.status === 'rejected');
      if (failed) {
        await rm(temporary, { force: true });
        throw failed.reason;
      }
      await rename(temporary, target);
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

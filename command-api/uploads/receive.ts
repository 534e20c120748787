import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.ts';

/** One file part, written to a temporary file as it arrived (never held whole in memory). */
export type ReceivedFile = {
  field: string;
  filename: string | null;
  path: string;
  size: number;
  /** SHA-256 of the bytes, hex. */
  sha256: string;
};

export type ReceivedUpload = {
  fields: Record<string, string>;
  files: ReceivedFile[];
  /** Removes the temporary files (always call it, success or not). */
  cleanup: () => Promise<void>;
};

/**
 * The multipart parser (busboy) reports a malformed body — no boundary, data ending mid-part — as
 * a plain Error without a code: that is the client's fault (400), not a server fault. Errors with a
 * code (our DomainErrors, @fastify/multipart's limits, file-system errors) pass through.
 */
const malformedBody = (error: unknown): unknown => {
  if (error instanceof DomainError || !(error instanceof Error) || (error as { code?: unknown }).code !== undefined) return error;
  return new DomainError('validation_failed', `malformed multipart body: ${error.message}`, { details: [`body is not valid multipart/form-data: ${error.message}`] });
};

/**
 * Reads a multipart body: text fields into `fields`, each file part of an accepted field streamed
 * to its own file in a fresh temporary directory while its SHA-256 is computed. The body's limits
 * (http/limits.ts) apply, `maxFileBytes` narrows the file size. On any failure (a limit, a client
 * that goes away mid-upload, a file in an unexpected field) the directory is removed before the
 * error propagates, so nothing is left behind.
 */
export const receiveMultipart = async (
  request: FastifyRequest,
  options: { tempDir: string; fileFields: readonly string[]; maxFileBytes: number; maxFiles: number },
): Promise<ReceivedUpload> => {
  if (!request.isMultipart()) {
    throw new DomainError('unsupported_media_type', 'this operation takes a multipart/form-data body');
  }
  await mkdir(options.tempDir, { recursive: true });
  const dir = await mkdtemp(join(options.tempDir, 'upload-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const fields: Record<string, string> = {};
  const files: ReceivedFile[] = [];
  try {
    for await (const part of request.parts({ limits: { fileSize: options.maxFileBytes, files: options.maxFiles } })) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') throw new DomainError('validation_failed', `field ${part.fieldname} must be text`);
        if (part.fieldname in fields) {
          throw new DomainError('validation_failed', `field ${part.fieldname} is given twice`, { details: [`body.${part.fieldname} is given twice`] });
        }
        fields[part.fieldname] = part.value;
        continue;
      }
      if (!options.fileFields.includes(part.fieldname)) {
        part.file.resume();
        throw new DomainError('validation_failed', `unexpected file field '${part.fieldname}'`, {
          details: [`body.${part.fieldname}: files go in ${options.fileFields.join(' or ')}`],
        });
      }
      if (files.length >= options.maxFiles) {
        part.file.resume();
        throw new DomainError('payload_too_large', `at most ${options.maxFiles} files per request`);
      }
      const path = join(dir, `part-${files.length}`);
      const hash = createHash('sha256');
      let size = 0;
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(part.file, tap, createWriteStream(path));
      files.push({ field: part.fieldname, filename: part.filename || null, path, size, sha256: hash.digest('hex') });
    }
  } catch (error) {
    await cleanup();
    throw malformedBody(error);
  }
  return { fields, files, cleanup };
};

/**
 * Removes upload directories left by a process that died mid-upload (kill -9, power loss): those
 * older than `maxAgeMs`, well past the longest a request may last (REQUEST_TIMEOUT_MS), so an
 * upload another replica sharing the directory is still receiving is never touched.
 */
export const sweepStaleUploads = async (tempDir: string, maxAgeMs: number, now = Date.now()): Promise<number> => {
  const entries = await readdir(tempDir, { withFileTypes: true }).catch(() => []);
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith('upload-')) continue;
    const path = join(tempDir, entry.name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > maxAgeMs) {
      await rm(path, { recursive: true, force: true });
      removed += 1;
    }
  }
  return removed;
};

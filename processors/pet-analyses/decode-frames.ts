import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import ffmpeg from 'fluent-ffmpeg';
import { ffmpegPath } from '../../infrastructure/media/ffmpeg-binaries.ts';
import type { Frames } from '../../domain/pet-analyses/breathing.ts';
import { randomId } from '../../infrastructure/ids.ts';

export { ffmpegPath };

export const DecodeSettings = {
  /** Frames per second decoded: 8/s resolves up to 240 movements a minute (Nyquist), far above any resting rate. */
  fps: 8,
  width: 160,
  height: 120,
  /** At most this much of the video is analysed (bounds memory: 60 s × 8 × 160 × 120 bytes ≈ 9 MB). */
  maxSeconds: 60,
  timeoutMs: 120_000,
};

/**
 * Decodes a video into small grey frames: ffmpeg drops it to `fps` frames a second, scales it to
 * width × height and writes raw 8-bit grey pixels to a pipe, which is cut into frames here. The
 * raw frames never touch the disk. The compressed video itself is copied from the blob store to a
 * temporary file first, because MP4/MOV files whose index sits at the end cannot be read from a
 * pipe; that file is removed whatever happens.
 */
export const decodeGreyFrames = async (video: Readable, settings = DecodeSettings): Promise<Frames> => {
  const dir = join(tmpdir(), 'animal-data-analyses');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `video-${randomId(12)}`);
  try {
    await pipeline(video, createWriteStream(path));
    return await new Promise<Frames>((resolve, reject) => {
      const frameBytes = settings.width * settings.height;
      const frames: Uint8Array[] = [];
      let pending: Buffer<ArrayBufferLike> = Buffer.alloc(0);
      let stderr = '';
      let settled = false;
      const finish = (error: Error | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve({ width: settings.width, height: settings.height, fps: settings.fps, frames });
      };
      const command = ffmpeg(path)
        .setFfmpegPath(ffmpegPath())
        .inputOptions(['-t', String(settings.maxSeconds)])
        .outputOptions(['-an', '-vf', `fps=${settings.fps},scale=${settings.width}:${settings.height},format=gray`, '-f', 'rawvideo', '-pix_fmt', 'gray'])
        .on('stderr', (line: string) => {
          if (stderr.length < 2000) stderr += `${line}\n`;
        })
        .on('error', (error: Error) => finish(new Error(`ffmpeg could not decode the video: ${error.message.split('\n')[0]}`)))
        .on('end', () => finish(null));
      const timer = setTimeout(() => {
        command.kill('SIGKILL');
        finish(new Error(`decoding took longer than ${settings.timeoutMs / 1000} s`));
      }, settings.timeoutMs);
      const output = command.pipe();
      output.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        while (pending.length >= frameBytes) {
          frames.push(new Uint8Array(pending.subarray(0, frameBytes)));
          pending = pending.subarray(frameBytes);
        }
      });
      output.on('error', (error: Error) => finish(error));
    });
  } finally {
    await rm(path, { force: true });
  }
};

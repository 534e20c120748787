import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { fileTypeFromFile } from 'file-type';
import { ffmpegBinary } from '../../infrastructure/media/ffmpeg-binaries.ts';
import { runBounded } from '../../infrastructure/media/bounded-run.ts';
import { safeInputArgs, VIDEO_TYPES } from '../../infrastructure/media/containers.ts';
import type { Frames } from '../../domain/pet-analyses/breathing.ts';
import { randomId } from '../../infrastructure/ids.ts';

export const ffmpegPath = (): string => ffmpegBinary().path;

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
 * Decodes a video into small grey frames: ffmpeg scales it to width × height, drops it to `fps`
 * frames a second and writes raw 8-bit grey pixels to a pipe, which is cut into frames here. The
 * raw frames never touch the disk. The compressed video itself is copied from the blob store to a
 * temporary file first, because MP4/MOV files whose index sits at the end cannot be read from a
 * pipe; that file is removed whatever happens.
 *
 * Bounded whatever the file holds (runBounded: a slot of the process-wide limit, rlimits, PATH-only
 * environment, SIGKILL after `timeoutMs`): the demuxer is forced from the sniffed container with
 * only the `file` protocol and the decoder whitelist; `-t` bounds the input read AND the output
 * (the `fps` filter fills a timestamp gap with copies of the last frame, so the input bound alone
 * bounds nothing), `-frames:v` caps the frames written, and the reader stops ffmpeg the moment
 * maxSeconds × fps frames have arrived — at most ≈ 9 MB of frames are ever held.
 */
export const decodeGreyFrames = async (video: Readable, settings = DecodeSettings): Promise<Frames> => {
  const dir = join(tmpdir(), 'animal-data-analyses');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `video-${randomId(12)}`);
  try {
    await pipeline(video, createWriteStream(path));
    const sniffed = await fileTypeFromFile(path);
    const container = sniffed ? VIDEO_TYPES[sniffed.mime] : undefined;
    if (!container) throw new Error(`the stored file is ${sniffed ? sniffed.mime : 'not a recognised video'}`);
    const frameBytes = settings.width * settings.height;
    const maxFrames = Math.ceil(settings.maxSeconds * settings.fps);
    const frames: Uint8Array[] = [];
    let pending: Buffer<ArrayBufferLike> = Buffer.alloc(0);
    const result = await runBounded({
      binary: ffmpegBinary().path,
      args: [
        '-nostdin', '-v', 'error',
        ...safeInputArgs(container.demuxer),
        '-t', String(settings.maxSeconds),
        '-i', `file:${path}`,
        '-map', '0:v:0', '-an', '-sn', '-dn',
        '-filter_threads', '1',
        // Scaled first, then dropped to `fps`: the frames `fps` makes up to fill a timestamp gap are
        // then copies of a small grey frame; in the other order every copy went through the scaler
        // (a crafted 7 KB file kept ffmpeg busy for over a minute before its first 480 frames).
        '-vf', `scale=${settings.width}:${settings.height},format=gray,fps=${settings.fps}`,
        '-t', String(settings.maxSeconds),
        '-frames:v', String(maxFrames),
        '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1',
      ],
      timeoutMs: settings.timeoutMs,
      // A backstop: the reader has stopped ffmpeg long before (a pipe chunk is at most 64 KiB).
      maxStdoutBytes: maxFrames * frameBytes + 1024 * 1024,
      onStdout: (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        while (pending.length >= frameBytes && frames.length < maxFrames) {
          frames.push(new Uint8Array(pending.subarray(0, frameBytes)));
          pending = pending.subarray(frameBytes);
        }
        // All the frames the analysis reads: ffmpeg is stopped there rather than left to go on
        // filling a timestamp gap it would only be cut off from later.
        return frames.length >= maxFrames ? 'enough' : undefined;
      },
    });
    if (result.stopped === 'timeout') throw new Error(`decoding took longer than ${settings.timeoutMs / 1000} s`);
    if (result.stopped === 'output_limit') throw new Error(`the video decodes to more than ${maxFrames} frames`);
    if (!result.ok) {
      const reason = result.signal ? `ffmpeg was stopped (${result.signal}: over its memory or CPU limit)` : (result.stderr.split('\n').find((line) => line.trim()) ?? `ffmpeg exited ${result.exitCode}`);
      throw new Error(`ffmpeg could not decode the video: ${reason}`);
    }
    return { width: settings.width, height: settings.height, fps: settings.fps, frames };
  } finally {
    await rm(path, { force: true });
  }
};

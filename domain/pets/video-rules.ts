import type { ErrorCode } from '../errors.ts';

/**
 * What a pet video must be to be stored (checked at upload, from the container's structure and what
 * ffprobe reads): a clip of the pet asleep, about 30 seconds in the spec's flow.
 * - duration known and between `minSeconds` and `maxSeconds`: a file that states no duration, or
 *   hours of it (a few KB with one huge timestamp gap decode to millions of frames), is refused;
 * - at most `maxStreams` streams (a phone clip has a video, an audio and a few metadata tracks);
 * - edit lists of at most `maxEditEntries` entries per track (an edit or two in real files).
 */
export const VideoLimits = {
  minSeconds: 0.1,
  maxSeconds: 600,
  maxStreams: 16,
  maxEditEntries: 100,
} as const;

export type VideoShape = { durationSeconds: number | null; streams: number; maxEditEntries?: number };

/** Why the video is refused (a 400 `code` and a message), or null when it is within the limits. */
export const videoProblem = (shape: VideoShape): { code: ErrorCode; message: string } | null => {
  if (shape.streams > VideoLimits.maxStreams) {
    return { code: 'video_too_complex', message: `the video has ${shape.streams} streams: at most ${VideoLimits.maxStreams} are accepted` };
  }
  if ((shape.maxEditEntries ?? 0) > VideoLimits.maxEditEntries) {
    return { code: 'video_too_complex', message: `a track of the video has an edit list of ${shape.maxEditEntries} entries: at most ${VideoLimits.maxEditEntries} are accepted` };
  }
  if (shape.durationSeconds === null || !Number.isFinite(shape.durationSeconds)) {
    return { code: 'video_duration_invalid', message: 'the video states no duration' };
  }
  if (shape.durationSeconds < VideoLimits.minSeconds || shape.durationSeconds > VideoLimits.maxSeconds) {
    return {
      code: 'video_duration_invalid',
      message: `the video lasts ${shape.durationSeconds} s: videos must last between ${VideoLimits.minSeconds} s and ${VideoLimits.maxSeconds / 60} minutes`,
    };
  }
  return null;
};

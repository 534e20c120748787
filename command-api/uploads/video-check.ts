import { DomainError } from '../../domain/errors.ts';
import { videoProblem } from '../../domain/pets/video-rules.ts';
import { isIsobmff, type VideoContainer } from '../../infrastructure/media/containers.ts';
import { MediaBusyError } from '../../infrastructure/media/media-slots.ts';
import { inspectIsobmff } from './isobmff.ts';
import { probeVideo, type VideoProbe } from './video-probe.ts';

/**
 * A pet video as its bytes say, before anything is stored, cheapest check first:
 * 1. MP4/MOV/3GP: the box structure (whole, well-formed, edit lists and track count within
 *    VideoLimits) from the headers alone — a file built to exhaust ffprobe never reaches it;
 * 2. ffprobe, bounded (video-probe.ts): a video stream with a size;
 * 3. the stream count and the duration within VideoLimits (domain/pets/video-rules.ts).
 * Refusals: 400 `invalid_media` (damaged, cut short, no video), `video_too_complex` (absurd
 * structure, or reading it needed more time or memory than a clip does), `video_duration_invalid`;
 * 503 `media_busy` when too many videos are being read already.
 */
export const checkVideo = async (path: string, video: VideoContainer): Promise<VideoProbe> => {
  const label = video.container.toUpperCase();
  let maxEditEntries = 0;
  if (isIsobmff(video.container)) {
    const shape = await inspectIsobmff(path);
    if (!shape.ok) throw new DomainError('invalid_media', `the ${label} file cannot be read as a video (${shape.reason === 'truncated' ? 'cut short' : 'its boxes are malformed'})`);
    const problem = videoProblem({ durationSeconds: 1, streams: shape.tracks, maxEditEntries: shape.maxEditEntries });
    if (problem) throw new DomainError(problem.code, problem.message);
    maxEditEntries = shape.maxEditEntries;
  }
  let outcome;
  try {
    outcome = await probeVideo(path, video.demuxer);
  } catch (error) {
    if (error instanceof MediaBusyError) {
      throw new DomainError('media_busy', 'too many videos are being read right now: try again shortly', { retryAfterSeconds: 5 });
    }
    throw error;
  }
  if (!outcome.ok) {
    if (outcome.reason === 'too_complex') throw new DomainError('video_too_complex', `the ${label} file is refused: ${outcome.detail}`);
    throw new DomainError('invalid_media', `the ${label} file cannot be read as a video (damaged or cut short): ${outcome.detail}`);
  }
  const problem = videoProblem({ durationSeconds: outcome.probe.durationSeconds, streams: outcome.probe.streams, maxEditEntries });
  if (problem) throw new DomainError(problem.code, problem.message);
  return outcome.probe;
};

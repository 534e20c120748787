import ffmpeg from 'fluent-ffmpeg';
import { ffprobePath } from '../../infrastructure/media/ffmpeg-binaries.ts';

export { ffprobePath };

export type VideoProbe = { width: number; height: number; durationSeconds: number | null; codec: string; formatName: string };

const PROBE_TIMEOUT_MS = 30_000;

/**
 * What ffprobe reads from a video file: the first video stream's size and codec and the
 * duration. null when ffprobe cannot read it or finds no video stream with a size.
 */
export const probeVideo = (path: string): Promise<VideoProbe | null> =>
  new Promise((resolve) => {
    let settled = false;
    const finish = (value: VideoProbe | null) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    const timer = setTimeout(() => finish(null), PROBE_TIMEOUT_MS);
    const command = ffmpeg(path).setFfprobePath(ffprobePath());
    command.ffprobe((error, data) => {
      if (error || !data) return finish(null);
      const video = data.streams.find((stream) => stream.codec_type === 'video' && Number(stream.width) > 0 && Number(stream.height) > 0);
      if (!video) return finish(null);
      const duration = Number(data.format.duration ?? video.duration);
      finish({
        width: Number(video.width),
        height: Number(video.height),
        durationSeconds: Number.isFinite(duration) && duration > 0 ? Math.round(duration * 1000) / 1000 : null,
        codec: String(video.codec_name ?? 'unknown'),
        formatName: String(data.format.format_name ?? ''),
      });
    });
  });

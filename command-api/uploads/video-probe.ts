import { ffprobeBinary } from '../../infrastructure/media/ffmpeg-binaries.ts';
import { runBounded } from '../../infrastructure/media/bounded-run.ts';
import { safeInputArgs } from '../../infrastructure/media/containers.ts';

export type VideoProbe = {
  width: number;
  height: number;
  /** The longest duration the file states (its format's or any stream's), or null when none. */
  durationSeconds: number | null;
  codec: string;
  formatName: string;
  streams: number;
};

export type ProbeOutcome =
  | { ok: true; probe: VideoProbe }
  /** ffprobe cannot read it, or finds no video stream with a size. */
  | { ok: false; reason: 'unreadable'; detail: string }
  /** Reading it needed more time, memory or output than any real clip does. */
  | { ok: false; reason: 'too_complex'; detail: string };

export const PROBE_TIMEOUT_MS = 30_000;
/** ffprobe's JSON for a file within the stream limit is a few KB. */
const MAX_PROBE_OUTPUT = 1024 * 1024;

type ProbeJson = {
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string }[];
  format?: { duration?: string; format_name?: string; nb_streams?: number };
};

const seconds = (value: unknown): number | null => {
  const number = Number(value);
  return Number.isFinite(number) && number > 0 ? number : null;
};

/**
 * What ffprobe reads from a video file whose container was sniffed (`demuxer`, see
 * infrastructure/media/containers.ts): the first video stream's size and codec, the stream count
 * and the duration. ffprobe runs bounded (runBounded: the process-wide slots, rlimits, PATH-only
 * environment, SIGKILL after PROBE_TIMEOUT_MS) with the demuxer forced, only the `file` protocol
 * and the decoder whitelist.
 */
export const probeVideo = async (path: string, demuxer: string): Promise<ProbeOutcome> => {
  const result = await runBounded({
    binary: ffprobeBinary().path,
    args: ['-v', 'error', ...safeInputArgs(demuxer), '-print_format', 'json', '-show_format', '-show_streams', `file:${path}`],
    timeoutMs: PROBE_TIMEOUT_MS,
    maxStdoutBytes: MAX_PROBE_OUTPUT,
  });
  if (result.stopped === 'timeout') return { ok: false, reason: 'too_complex', detail: `reading it took longer than ${PROBE_TIMEOUT_MS / 1000} s` };
  if (result.stopped === 'output_limit') return { ok: false, reason: 'too_complex', detail: 'it describes too many streams' };
  if (result.signal === 'SIGXCPU' || result.signal === 'SIGKILL' || /Cannot allocate memory|out of memory/i.test(result.stderr)) {
    return { ok: false, reason: 'too_complex', detail: 'reading it needed more memory or CPU time than a video may use' };
  }
  if (!result.ok) return { ok: false, reason: 'unreadable', detail: result.stderr.split('\n').find((line) => line.trim()) ?? `ffprobe exited ${result.exitCode}` };
  let data: ProbeJson;
  try {
    data = JSON.parse(result.stdout.toString('utf8')) as ProbeJson;
  } catch {
    return { ok: false, reason: 'unreadable', detail: 'ffprobe gave no readable answer' };
  }
  const streams = data.streams ?? [];
  const video = streams.find((stream) => stream.codec_type === 'video' && Number(stream.width) > 0 && Number(stream.height) > 0);
  if (!video) return { ok: false, reason: 'unreadable', detail: 'no video stream with a size' };
  const durations = [seconds(data.format?.duration), ...streams.map((stream) => seconds(stream.duration))].filter((value): value is number => value !== null);
  return {
    ok: true,
    probe: {
      width: Number(video.width),
      height: Number(video.height),
      durationSeconds: durations.length > 0 ? Math.round(Math.max(...durations) * 1000) / 1000 : null,
      codec: String(video.codec_name ?? 'unknown'),
      formatName: String(data.format?.format_name ?? ''),
      streams: Math.max(streams.length, Number(data.format?.nb_streams) || 0),
    },
  };
};

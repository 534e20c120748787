/**
 * The spec's video containers (MP4, MOV, WebM, AVI, MPEG, 3GP), by the media type file-type sniffs
 * from the bytes: the container and media type recorded, and the one ffmpeg demuxer allowed to
 * read it. The demuxer is forced (`-f`) and is the only one on the format whitelist, so ffmpeg never
 * guesses a format from the bytes and no nested demuxer (HLS, concat, image sequences: a playlist
 * hidden in an AVI subtitle stream) can be opened. MPEG covers the MPEG-1 and MPEG-2 program
 * streams (.mpg) and the MPEG-2 transport stream (.ts).
 */
export type VideoContainer = { container: string; mime: string; demuxer: string };

export const VIDEO_TYPES: Record<string, VideoContainer> = {
  'video/mp4': { container: 'mp4', mime: 'video/mp4', demuxer: 'mov' },
  'video/x-m4v': { container: 'mp4', mime: 'video/mp4', demuxer: 'mov' },
  'video/quicktime': { container: 'mov', mime: 'video/quicktime', demuxer: 'mov' },
  'video/webm': { container: 'webm', mime: 'video/webm', demuxer: 'matroska' },
  'video/vnd.avi': { container: 'avi', mime: 'video/vnd.avi', demuxer: 'avi' },
  'video/mpeg': { container: 'mpeg', mime: 'video/mpeg', demuxer: 'mpeg' },
  'video/MP1S': { container: 'mpeg', mime: 'video/mpeg', demuxer: 'mpeg' },
  'video/MP2P': { container: 'mpeg', mime: 'video/mpeg', demuxer: 'mpeg' },
  'video/mp2t': { container: 'mpeg', mime: 'video/mp2t', demuxer: 'mpegts' },
  'video/3gpp': { container: '3gp', mime: 'video/3gpp', demuxer: 'mov' },
  'video/3gpp2': { container: '3gp', mime: 'video/3gpp2', demuxer: 'mov' },
};

/** Containers built of ISO base media boxes (their structure is checked before ffprobe reads them). */
export const isIsobmff = (container: string): boolean => container === 'mp4' || container === 'mov' || container === '3gp';

/**
 * The decoders ffmpeg and ffprobe may open (`-codec_whitelist`): the video codecs those containers
 * carry from phones, cameras and browsers, and the audio codecs beside them (ffprobe opens a
 * decoder for every stream and gives up on the file when one is refused). Every other decoder of
 * the build — hundreds, most of them rarely fuzzed — stays unreachable from an upload.
 */
export const DECODER_WHITELIST = [
  // video
  'h264', 'hevc', 'mpeg4', 'msmpeg4', 'msmpeg4v2', 'msmpeg4v1', 'h263', 'mpeg1video', 'mpeg2video', 'vp8', 'vp9', 'av1', 'libdav1d', 'mjpeg',
  // audio
  'aac', 'aac_fixed', 'mp3float', 'mp3', 'mp2float', 'mp2', 'ac3', 'eac3', 'opus', 'libopus', 'vorbis', 'libvorbis', 'flac', 'alac', 'amrnb', 'amrwb',
  'pcm_s16le', 'pcm_s16be', 'pcm_s24le', 'pcm_u8', 'pcm_f32le', 'pcm_alaw', 'pcm_mulaw', 'adpcm_ima_wav', 'adpcm_ima_qt',
] as const;

/**
 * The input options every ffmpeg/ffprobe run on an upload gets, before its `-i`: the demuxer forced
 * and alone on the format whitelist, only the `file` protocol (no http, no tcp, no pipes or
 * sub-protocols a playlist could name), the decoder whitelist, one decoding thread, and for
 * MP4/MOV/3GP external data references off (`dref` boxes naming other files are never followed).
 */
export const safeInputArgs = (demuxer: string): string[] => [
  '-f', demuxer,
  '-format_whitelist', demuxer,
  '-protocol_whitelist', 'file',
  '-codec_whitelist', DECODER_WHITELIST.join(','),
  '-threads', '1',
  ...(demuxer === 'mov' ? ['-enable_drefs', '0', '-use_absolute_path', '0'] : []),
];

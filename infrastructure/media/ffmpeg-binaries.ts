import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

/**
 * ffmpeg and ffprobe come from the registry: @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe
 * ship a static binary per platform inside their npm tarballs. FFMPEG_PATH / FFPROBE_PATH override
 * them (e.g. Debian's /usr/bin/ffmpeg).
 */
export const ffmpegPath = (): string => process.env.FFMPEG_PATH || ensureExecutable(ffmpegInstaller.path);
export const ffprobePath = (): string => process.env.FFPROBE_PATH || ensureExecutable(ffprobeInstaller.path);

const checked = new Set<string>();
/**
 * The packages store their binary without the execute bit and set it in a postinstall script;
 * where install scripts are not run (npm's install-scripts policy, --ignore-scripts) the bit is
 * set here, once per binary, instead.
 */
const ensureExecutable = (path: string): string => {
  if (checked.has(path)) return path;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, statSync(path).mode | 0o111);
  }
  checked.add(path);
  return path;
};

import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { delimiter, join } from 'node:path';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';

/**
 * Which ffmpeg and ffprobe run, in this order:
 * 1. `FFMPEG_PATH` / `FFPROBE_PATH` when set;
 * 2. the system's (`ffmpeg` / `ffprobe` on the PATH: Debian's 5.1.x with its security updates,
 *    installed by `.ci/run` and the Dockerfile);
 * 3. only as a fallback, the static binaries @ffmpeg-installer/ffmpeg and @ffprobe-installer/ffprobe
 *    ship inside their npm tarballs — ffmpeg a 2018 build (4.1-dev) that predates fixes for
 *    memory-safety bugs in demuxers and decoders reachable from uploads, ffprobe an unversioned 2023
 *    git snapshot; neither gets security updates, and a warning names the binary when it is used.
 */
export type MediaBinary = { path: string; source: 'env' | 'system' | 'npm-fallback' };

const onPath = (name: string): string | null => {
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return null;
};

const resolved = new Map<string, MediaBinary>();
const resolve = (name: 'ffmpeg' | 'ffprobe', envName: string, fallback: string): MediaBinary => {
  const fromEnv = process.env[envName];
  const key = `${name}\u0000${fromEnv ?? ''}`;
  let binary = resolved.get(key);
  if (!binary) {
    const system = fromEnv ? null : onPath(name);
    binary = fromEnv ? { path: fromEnv, source: 'env' } : system ? { path: system, source: 'system' } : { path: ensureExecutable(fallback), source: 'npm-fallback' };
    if (binary.source === 'npm-fallback') {
      process.emitWarning(`no ${name} on the PATH: using the unmaintained static build from npm (${fallback}); install the system's (apt-get install ffmpeg)`, { code: 'MEDIA_FFMPEG_FALLBACK' });
    }
    resolved.set(key, binary);
  }
  return binary;
};

export const ffmpegBinary = (): MediaBinary => resolve('ffmpeg', 'FFMPEG_PATH', ffmpegInstaller.path);
export const ffprobeBinary = (): MediaBinary => resolve('ffprobe', 'FFPROBE_PATH', ffprobeInstaller.path);
export const ffmpegPath = (): string => ffmpegBinary().path;
export const ffprobePath = (): string => ffprobeBinary().path;

const versions = new Map<string, Promise<string>>();
/** The first line's version (`5.1.9-0+deb12u1`, `N-47683-g0e8eb07980-static`) of a binary, once per path; `unknown` if it cannot run. */
export const binaryVersion = (path: string): Promise<string> => {
  let version = versions.get(path);
  if (!version) {
    version = new Promise((done) =>
      execFile(path, ['-version'], { env: { PATH: process.env.PATH ?? '' }, timeout: 10_000 }, (error, stdout) =>
        done(error ? 'unknown' : (/version (\S+)/.exec(stdout)?.[1] ?? 'unknown')),
      ),
    );
    versions.set(path, version);
  }
  return version;
};

/** Which builds run, for /metrics (`media_ffmpeg_info`) and the logs. */
export const mediaBuild = async (): Promise<{ ffmpeg: MediaBinary & { version: string }; ffprobe: MediaBinary & { version: string } }> => {
  const ffmpeg = ffmpegBinary();
  const ffprobe = ffprobeBinary();
  return {
    ffmpeg: { ...ffmpeg, version: await binaryVersion(ffmpeg.path) },
    ffprobe: { ...ffprobe, version: await binaryVersion(ffprobe.path) },
  };
};

const checked = new Set<string>();
/**
 * The npm packages store their binary without the execute bit and set it in a postinstall script;
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

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
let built: string | undefined;

/**
 * The service compiled as `npm run build` compiles it (tsconfig.build.json), into a folder of this
 * test process's own under test-output/ (so suites running at once never write the same files),
 * made on the first call, kept, and removed when the process exits. Returns that folder: its `runtime/main.js` is what `npm start`
 * runs from `dist/`.
 */
export const compiledService = (): string => {
  if (built) return built;
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  const outDir = mkdtempSync(join(ROOT, 'test-output', 'compiled-'));
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180_000,
    });
  } catch (error) {
    const { stdout } = error as { stdout?: Buffer };
    throw new Error(`npm run build failed:\n${stdout?.toString() ?? String(error)}`);
  }
  return (built = outDir);
};

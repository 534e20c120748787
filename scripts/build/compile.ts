import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Compiles with the repository's TypeScript as `npm run build` does, with the tsconfig `project`
 * (a path from the repository's root) into `outDir`, for the tests and the bench that run the
 * compiled service. Throws with the compiler's report when it fails.
 */
export const compileInto = (project: string, outDir: string): void => {
  try {
    execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, project), '--outDir', outDir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 300_000,
    });
  } catch (error) {
    const { stdout } = error as { stdout?: Buffer };
    throw new Error(`compiling ${project} failed:\n${stdout?.toString() ?? String(error)}`);
  }
};

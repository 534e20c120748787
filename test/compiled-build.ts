import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileInto } from '../scripts/build/compile.ts';

const ROOT = join(import.meta.dirname, '..');
let built: string | undefined;

/**
 * The service compiled as `npm run build` compiles it (tsconfig.build.json), into a folder of this
 * test process's own under test-output/ (so suites running at once never write the same files),
 * made on the first call, kept, and removed when the process exits. Returns that folder: its
 * `runtime/main.js` is what `npm start` runs from `dist/`.
 */
export const compiledService = (): string => {
  if (built) return built;
  mkdirSync(join(ROOT, 'test-output'), { recursive: true });
  const outDir = mkdtempSync(join(ROOT, 'test-output', 'compiled-'));
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  compileInto('tsconfig.build.json', outDir);
  return (built = outDir);
};

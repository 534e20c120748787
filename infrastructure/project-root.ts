import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * True when this code runs as the compiled JavaScript `npm run build` writes to `dist/` (how
 * `npm start`, the Docker image and the bench run the service), false when it runs from its
 * TypeScript sources through tsx (the tests, `npm run dev`).
 */
export const RUNS_COMPILED = import.meta.url.endsWith('.js');

/** The nearest folder at or above `from` that holds a package.json. */
const packageFolder = (from: string): string => {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${from}`);
  }
};

/**
 * The repository's root folder, wherever this module runs from (its sources, `dist/`, or another
 * build folder): the files that are not code — the reference data, the console's assets, the image
 * models — are read from the sources' tree, so a compiled copy holds code only.
 */
export const PROJECT_ROOT = packageFolder(dirname(fileURLToPath(import.meta.url)));

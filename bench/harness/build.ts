import { join } from 'node:path';
import { compileInto } from '../../scripts/build/compile.ts';
import { REPO_ROOT } from './children.ts';

/** Where the bench compiles the service and its own child services (gitignored). */
export const BENCH_BUILD_DIR = join(REPO_ROOT, 'bench', '.compiled');

let built = false;

/**
 * Compiles the service as `npm run build` does (bench/tsconfig.build.json extends
 * tsconfig.build.json with the bench's child services, which import the service's modules) into
 * BENCH_BUILD_DIR, once per bench process, so every service the bench starts runs as `npm start`
 * and the Docker image run it: compiled JavaScript on plain node.
 */
export const compileForBench = (): void => {
  if (built) return;
  compileInto('bench/tsconfig.build.json', BENCH_BUILD_DIR);
  built = true;
};

/**
 * The file a service entry point (a .ts path from the repository's root) runs from: its compiled
 * copy, or with BENCH_FROM_SOURCES=1 the TypeScript file itself through tsx (to compare the two).
 */
export const serviceEntry = (script: string): string => {
  if (process.env.BENCH_FROM_SOURCES === '1') return script;
  compileForBench();
  return join(BENCH_BUILD_DIR, script.replace(/\.ts$/, '.js'));
};
